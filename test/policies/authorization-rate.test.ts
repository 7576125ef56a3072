/**
 * What an authorization request costs of its address's budget, without HTTP (over HTTP:
 * test/provider/authorization-rate.test.ts).
 */
import { AUTHORIZATION_REQUEST_UNIT_BYTES, authorizationRequestCost } from '../../lib/policies/authorization-rate.ts';

describe('authorizationRequestCost', () => {
  it('one unit per started 2 KiB of the request target', () => {
    expect(authorizationRequestCost(0)).toBe(1);
    expect(authorizationRequestCost(600)).toBe(1);
    expect(authorizationRequestCost(AUTHORIZATION_REQUEST_UNIT_BYTES)).toBe(1);
    expect(authorizationRequestCost(AUTHORIZATION_REQUEST_UNIT_BYTES + 1)).toBe(2);
    // the largest request line Node takes (16 KiB of headers)
    expect(authorizationRequestCost(16 * 1024)).toBe(8);
  });
});
