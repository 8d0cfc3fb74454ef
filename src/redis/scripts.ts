// The Lua scripts of the Redis coordination: each one step that must not interleave with
// another instance's. Every key a script touches is in its KEYS, and a script's keys share one
// hash slot (keys.ts), so each runs as it is on a Redis Cluster. Time is Redis's own (TIME),
// so instances with skewed clocks agree. Commands need Redis 6.2 (ZADD LT, ZMSCORE).

const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/**
 * This instance lives: its deadline ARGV[1] + ARGV[2] ms in the sorted set KEYS[1] of live
 * instances (instance id to the Redis time its liveness ends). Returns Redis's time and the
 * live instances with their deadlines. With ARGV[3] = 1 it also drops the instances dead for a
 * day. One script per beat, however many leases and claims the instance holds: they name it,
 * and live as long as it does.
 */
export const HEARTBEAT = `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
if ARGV[3] == '1' then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 86400000) end
return {now, redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf', 'WITHSCORES')}`;

/**
 * The replicas in sync with the master of KEYS[1]'s slot (the key only routes the script
 * there, on a cluster): whether a write of that slot can wait for one (WAIT).
 */
export const REPLICAS = `local n = 0
for _ in string.gmatch(redis.call('INFO', 'replication'), 'state=online') do n = n + 1 end
return n`;

/** The deadlines of the instances ARGV in the set KEYS[1] (0 for one not in it), after Redis's time. */
export const ALIVE = `${NOW}
local deadlines = redis.call('ZMSCORE', KEYS[1], unpack(ARGV))
local out = {now}
for i = 1, #ARGV do out[i + 1] = deadlines[i] and tonumber(deadlines[i]) or 0 end
return out`;

/**
 * Claim KEYS[1] (a task's lease, a callback's claim) for the instance ARGV[1], for ARGV[2] ms:
 * 1 when it was free or already this instance's (kept), 0 when it says `done` (a handled
 * callback), else the instance holding it. Whether that holder lives is told by the live set,
 * in another slot: the caller asks it, and takes over a dead holder's claim with TAKE_OVER.
 */
export const CLAIM = `local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == 'done' then return 0 end
return holder`;

/** KEYS[1] is the dead instance ARGV[1]'s: make it ARGV[2]'s for ARGV[3] ms (1), unless it changed meanwhile (0). */
export const TAKE_OVER = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`;

/** KEYS[1] (a claim in progress) lives ARGV[2] ms more if ARGV[1] still holds it: its holder's heartbeat. */
export const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

/** Give up KEYS[1] (a lease, a claim) if ARGV[1] holds it. */
export const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/**
 * Query slots (the fleet's budget) or requests (a rate limit) in the sorted set KEYS[1], each
 * member's score the time it stops counting: ARGV[3] ms after it starts while unanswered (its
 * answer, ZADD XX LT, brings it forward: never later), plus the window ARGV[2] (a query counts
 * until one window after its answer). At most ARGV[1] count at once. ARGV[6..] are ids to
 * place, in order: each answer is 0 (it may start now), a positive number of ms (ARGV[4] = 1:
 * reserved to start that much later, when a slot frees whose query was answered already, so
 * no instance has to ask again then), or minus the ms to wait before asking again. A
 * reservation counts from now, so nobody else gets its slot. ARGV[5] > 0: the set expires
 * that many ms after its last entry (rate limits: one key per identity).
 */
export const SLOTS_TAKE = `${NOW}
local max, win, hold = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local k = #ARGV - 5
local n = redis.call('ZCARD', KEYS[1])
if n + k > max then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
  n = redis.call('ZCARD', KEYS[1])
end
local out, add = {now}, {}
local i = 1
while i <= k and n < max do
  add[#add + 1] = now + hold
  add[#add + 1] = ARGV[5 + i]
  out[#out + 1] = 0
  n = n + 1
  i = i + 1
end
if i <= k then
  local reserve = ARGV[4] == '1'
  local first = n - max
  local ends = redis.call('ZRANGE', KEYS[1], first, reserve and first + k - i or first, 'WITHSCORES')
  local j = 2
  while i <= k do
    local lane = tonumber(ends[j])
    if reserve and lane and lane <= now then
      add[#add + 1] = lane + win + hold
      add[#add + 1] = ARGV[5 + i]
      out[#out + 1] = math.max(1, lane + win - now)
      j = j + 2
    elseif lane and lane <= now then
      out[#out + 1] = -math.max(1, lane + win - now)
    else
      out[#out + 1] = -math.floor(win / 4)
    end
    i = i + 1
  end
end
if #add > 0 then
  redis.call('ZADD', KEYS[1], unpack(add))
  if tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', KEYS[1], hold + win + tonumber(ARGV[5])) end
end
return out`;

/** More durations of a kind: ARGV[3..] pushed, the last ARGV[1] kept, for ARGV[2] ms. */
export const DURATION_ADD = `redis.call('RPUSH', KEYS[1], unpack(ARGV, 3))
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[1]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** The journal entry ARGV[1] (if any) of the hash KEYS[1] is now owned by ARGV[2]. */
export const JOURNAL_ADOPT = `local value = redis.call('HGET', KEYS[1], ARGV[1])
if value then
  local ok, entry = pcall(cjson.decode, value)
  if ok and type(entry) == 'table' and entry.owner ~= ARGV[2] then
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
 * Record the entry ARGV[2] of the task ARGV[1], submitted at ARGV[3] ms: in the hash KEYS[1] (the
 * entries awaiting their result), the hash KEYS[3] (what was submitted, kept after the result
 * was seen: whose task a callback names) and their index by time KEYS[2]; with ARGV[4] (the 24 h
 * horizon), also drop up to 1,000 tasks submitted before it from all three (one record in 16
 * does: the journal stays bounded, and a record costs three writes).
 */
export const JOURNAL_RECORD = `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if ARGV[4] == nil then return 0 end
local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4], 'LIMIT', 0, 1000)
if #old > 0 then
  redis.call('HDEL', KEYS[1], unpack(old))
  redis.call('HDEL', KEYS[3], unpack(old))
  redis.call('ZREM', KEYS[2], unpack(old))
end
return #old`;

/** The results of the tasks ARGV (a page at most) were seen: their entries leave the hash KEYS[1] (what was submitted stays). */
export const JOURNAL_CLEAR = `redis.call('HDEL', KEYS[1], unpack(ARGV))
return 1`;

/** Drop the tasks ARGV (past the horizon; a page at most) from the hashes KEYS[1] and KEYS[3] and their index KEYS[2]. */
export const JOURNAL_DROP = `redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[3], unpack(ARGV))
redis.call('ZREM', KEYS[2], unpack(ARGV))
return 1`;
