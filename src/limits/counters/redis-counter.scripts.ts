// Lua run atomically inside Redis, so concurrent gateway instances can never both take the last
// unit of a limit. Each counter is a hash {n: count, e: window end in epoch ms} that expires at
// its window end. "Now" is Redis's own clock (TIME), so instances with skewed clocks still agree
// on when a window started and ends.

/**
 * KEYS: the counters. ARGV[1]: amount, ARGV[2]: up to; then per counter i: limit, window ms, fixed
 * end ms (0 for a rolling window that starts now). Charges all counters or none: at least amount,
 * and as much more up to "up to" as every counter has room for.
 * Returns {refused index or -1, now, charged, used_1, end_1, used_2, end_2, ...}.
 */
export const CONSUME_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local amount = tonumber(ARGV[1])
local upTo = tonumber(ARGV[2])
local used, ends, refused, room = {}, {}, -1, upTo
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i * 3])
  local window = tonumber(ARGV[i * 3 + 1])
  local fixedEnd = tonumber(ARGV[i * 3 + 2])
  local state = redis.call('HMGET', key, 'n', 'e')
  local n, e = tonumber(state[1]), tonumber(state[2])
  if not e or e <= now then
    n = 0
    if fixedEnd > 0 then e = fixedEnd else e = now + window end
  end
  used[i], ends[i] = n, e
  if refused < 0 and n + amount > limit then refused = i - 1 end
  if limit - n < room then room = limit - n end
end
local charged = 0
if refused < 0 then
  charged = math.max(amount, room)
  for i, key in ipairs(KEYS) do
    used[i] = used[i] + charged
    redis.call('HSET', key, 'n', used[i], 'e', ends[i])
    redis.call('PEXPIREAT', key, ends[i])
  end
end
local reply = { refused, now, charged }
for i = 1, #KEYS do
  reply[#reply + 1] = used[i]
  reply[#reply + 1] = ends[i]
end
return reply
`;

/**
 * KEYS: the counters; ARGV[2i - 1]: the delta for counter i, ARGV[2i]: the window end that
 * identifies its window. A counter whose window has since ended (or restarted) is left alone. A
 * key may come more than once (two settlements of one counter sent together); each is applied in
 * turn, exactly as separate calls would be.
 */
export const ADJUST_SCRIPT = `
for i, key in ipairs(KEYS) do
  local state = redis.call('HMGET', key, 'n', 'e')
  if state[2] and tonumber(state[2]) == tonumber(ARGV[i * 2]) then
    local n = tonumber(state[1]) + tonumber(ARGV[i * 2 - 1])
    if n < 0 then n = 0 end
    redis.call('HSET', key, 'n', n)
  end
end
return 0
`;
