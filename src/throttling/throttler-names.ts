import { minutes } from '@nestjs/throttler';

/**
 * Named throttlers of the gateway. Each guard applies only its own name, so adding a throttler
 * for another API (the admin API's 10 per 10 s, spec section 8) is one entry in
 * ThrottlingModule's list plus its guard, and never limits virtual keys twice.
 */
export const KEY_REQUESTS_THROTTLER = 'key-requests';

/** Spec section 8: requests per key are counted per minute. */
export const KEY_REQUESTS_WINDOW_MS = minutes(1);
