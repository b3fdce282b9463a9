import { minutes } from '@nestjs/throttler';

/**
 * Named throttlers of the gateway. A throttler for another API (the admin API's 10 requests per
 * 10 s) is one more entry in ThrottlingModule's list, enforced by a ThrottlerGuard
 * on that API's controller; it shares the counter store, so it holds across instances too.
 * KeyThrottlerGuard applies only KEY_REQUESTS_THROTTLER, and that one skips requests without a
 * virtual key, so the two never count each other's requests.
 */
export const KEY_REQUESTS_THROTTLER = 'key-requests';

/** rpm_limit is requests per minute, so a key's requests are counted per minute. */
export const KEY_REQUESTS_WINDOW_MS = minutes(1);
