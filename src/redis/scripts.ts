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

/** Give up the lease KEYS[1] if ARGV[1] holds it. */
export const LEASE_RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * Claim the delivery KEYS[1] for the instance ARGV[1]: 1 when it may run `onTask`. A claim
 * names its instance until `onTask` has returned (then it says `done`); a claim whose instance
 * died (its liveness key ARGV[2]..instance expired) is taken again, so a redelivery after a
 * crash inside `onTask` runs it. Kept ARGV[3] ms.
 */
export const DEDUPE_CLAIM = `local holder = redis.call('GET', KEYS[1])
if holder == false or (holder ~= 'done' and holder ~= ARGV[1] and redis.call('EXISTS', ARGV[2] .. holder) == 0) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return 1
end
return 0`;

/** The journal entry ARGV[1] (if any) is now owned by ARGV[2]. */
export const JOURNAL_ADOPT = `local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
  local ok, entry = pcall(cjson.decode, value)
  if ok and type(entry) == 'table' then
    entry.owner = ARGV[2]
    redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
  end
end
return 1`;

/**
 * The journal entries whose owner is gone (its liveness key ARGV[1]..owner expired); entries
 * submitted before ARGV[2] (a day ago: the service keeps results 24 h) are dropped.
 */
export const JOURNAL_PENDING = `local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local ok, entry = pcall(cjson.decode, all[i + 1])
  if ok and type(entry) == 'table' and type(entry.owner) == 'string' then
    local at = tonumber(entry.submitted_at)
    if at == nil or at < tonumber(ARGV[2]) then
      redis.call('HDEL', KEYS[1], all[i])
    elseif redis.call('EXISTS', ARGV[1] .. entry.owner) == 0 then
      table.insert(out, all[i + 1])
    end
  end
end
return out`;
