/**
 * Member data: the service the Account API and the MCP tools read the host's data through
 * (./service.ts). The contract the host implements is in ../contracts.ts.
 *
 * @module
 */
export type {
  CourseOutlineRecord, EnrolmentRecord, EventRecord, EventRegistrationRecord, Instant, LectureProgressRecord,
  MemberDataSource, MemberRecord, MemberRef, MoneyRecord, OrderItemKind, OrderItemRecord, OrderRecord, OrderStatus,
  OutlineLectureRecord, OutlineSectionRecord, PageRequest, PageResult, PublicCatalogueSource, PublicCourseRecord,
  RegistrationStatus,
} from '../contracts.ts';
export { createCatalogueService, MAX_SEARCH_TEXT_LENGTH } from './catalogue.ts';
export type { CatalogueService, CourseOutline, PublicCourse } from './catalogue.ts';
export { createMemberDataService } from './service.ts';
export type {
  EnrolledCourse, EnrolledCourseWithProgress, EventRegistration, EventSummary, LectureProgress, MemberAccount,
  MemberDataService, MemberDataServiceOptions, MemberIdentity, MemberProfile, Order, OrderItem,
} from './service.ts';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, decodeCursor, encodeCursor, resolvePage, toConnection } from './pagination.ts';
export type { Connection, PageArgs, PageInfo } from './pagination.ts';
export { MemberDataInputError } from './errors.ts';
export type { MemberDataInputCode } from './errors.ts';
export { createBatchLoader } from './batch.ts';
export type { BatchLoad, Loader } from './batch.ts';
export { formatMoney, toIsoInstant } from './values.ts';
export type { Money } from './values.ts';
