// The Lua scripts of the Redis coordination: each one step that must not interleave with
// another instance's. Time is Redis's own (TIME), so instances with skewed clocks agree.

const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/**
 * The fleet's query budget, as the in-memory one (MemoryPollBudget): each query counts until
 * one second after its answer (at most MAX_HOLD after its start while unanswered). A sorted
 * set holds each query's end; a query may start while fewer than `max` end after now - 1 s.
 * KEYS[1] the set; ARGV max, id, hold ms, window ms. Returns {1, 0} when granted, else {0, ms
 * to wait}. With a hold of 0 it is a plain sliding-window limit: the proxy's per-identity
 * rate limits use it so (one key per call: one hash slot).
 */
export const BUDGET_TAKE = `${NOW}
local max = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[4]))
local n = redis.call('ZCARD', KEYS[1])
if n < max then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]) * 2)
  return {1, 0}
end
local ends = redis.call('ZRANGE', KEYS[1], n - max, n - max, 'WITHSCORES')
return {0, tonumber(ends[2]) + tonumber(ARGV[4]) - now}`;

/** The query `id` was answered: it counts until one second from now. */
export const BUDGET_RELEASE = `${NOW}
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1]) end
return 1`;

/** One more duration of a kind: keep the last ARGV[2], for ARGV[3] ms. */
export const DURATION_ADD = `redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * Take the lease KEYS[1] for the instance ARGV[1], or keep it: 1 when ARGV[1] holds it. A lease
 * names its holder and lives as long as the holder does (its liveness key ARGV[2]..holder, which
 * the holder's heartbeat renews), so keeping 10,000 leases costs a heartbeat nothing more; the
 * key's own expiry (ARGV[3] ms) only collects leases nobody released.
 */
export const LEASE_HOLD = `local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or holder == false or redis.call('EXISTS', ARGV[2] .. holder) == 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return 1
end
return 0`;

/** Give up the lease (or the callback claim) KEYS[1] if ARGV[1] holds it. */
export const LEASE_RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * Claim the delivery KEYS[1] for the instance ARGV[1]. A claim names its instance while `onTask`
 * runs, then says `done`. Returns 1 when this instance may run `onTask` (the claim was free, or
 * its own: this instance's handlers guard their own claims in progress), 0 when it is done, else
 * the instance holding it. That holder's liveness key is not known before the GET, and every
 * key a script touches is passed in KEYS (Redis Cluster): so the caller asks again with
 * KEYS[2] the liveness key of the holder ARGV[3], and a claim whose holder died is taken over.
 * Kept ARGV[2] ms.
 */
export const DEDUPE_CLAIM = `local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] or (holder == ARGV[3] and redis.call('EXISTS', KEYS[2]) == 0) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == 'done' then return 0 end
return holder`;

/** The journal entry ARGV[1] (if any) of the hash KEYS[1] is now owned by ARGV[2]. */
export const JOURNAL_ADOPT = `local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
  local ok, entry = pcall(cjson.decode, value)
  if ok and type(entry) == 'table' then
    entry.owner = ARGV[2]
    redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
  end
end
return 1`;

/** The journal entry ARGV[1] of the hash KEYS[1], if ARGV[2] owns it, is now nobody's: its last wait gave up. */
export const JOURNAL_RELEASE = `local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
  local ok, entry = pcall(cjson.decode, value)
  if ok and type(entry) == 'table' and entry.owner == ARGV[2] then
    entry.owner = ''
    redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
  end
end
return 1`;

/**
 * Record the entry ARGV[2] of the task ARGV[1], submitted at ARGV[3] ms, in the hash KEYS[1] and
 * its index by time KEYS[2]; then drop up to 100 entries submitted before ARGV[4] (the 24 h
 * horizon): every record keeps the journal bounded.
 */
export const JOURNAL_RECORD = `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4], 'LIMIT', 0, 100)
if #old > 0 then
  redis.call('HDEL', KEYS[1], unpack(old))
  redis.call('ZREM', KEYS[2], unpack(old))
end
return #old`;

/** Drop the entries ARGV (task ids, a page at most) from the hash KEYS[1] and its index KEYS[2]. */
export const JOURNAL_CLEAR = `redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('ZREM', KEYS[2], unpack(ARGV))
return 1`;
