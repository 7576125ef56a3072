/**
 * The one error the member-data service throws on purpose: the caller asked for a page it
 * cannot have. Anything else thrown under the service is a host or library fault and is
 * masked by whoever answers the caller.
 *
 * @module
 */

export type MemberDataInputCode = 'PAGE_SIZE_TOO_LARGE' | 'INVALID_PAGE_SIZE' | 'INVALID_CURSOR' | 'INVALID_ARGUMENT';

export class MemberDataInputError extends Error {
  readonly code: MemberDataInputCode;
  /** the argument at fault, as the caller named it (`first`, `after`, `text`) */
  readonly argument: string;
  /** for PAGE_SIZE_TOO_LARGE: the cap */
  readonly maximum: number | undefined;

  constructor(code: MemberDataInputCode, argument: string, message: string, maximum?: number) {
    super(message);
    this.name = 'MemberDataInputError';
    this.code = code;
    this.argument = argument;
    this.maximum = maximum;
  }
}
