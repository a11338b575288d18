-- wrk driver for the bench's HTTP flows (bench/harness/wrk-cell.ts writes
-- FLOW above this file: the steps' request templates and expected replies).
--
-- One flow is a chain of steps: a first call, then for MRTR each retry
-- carrying the answers and the exact requestState the previous reply sent.
-- The server is stateless, so a retry may go out on any connection of the
-- thread: a reply that asks for input queues the next step, and the next
-- request() takes from that queue before it starts a new flow. Replies are
-- matched to their step by JSON-RPC id and checked by substring; a wrong one
-- counts as an error and its flow is dropped (not counted as throughput).

local ffi_ok, ffi = pcall(require, "ffi")
local now_ms
if ffi_ok then
  ffi.cdef [[
    typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
    int clock_gettime(int clk_id, bench_timespec *tp);
  ]]
  local ts = ffi.new("bench_timespec")
  now_ms = function()
    ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
    return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
  end
else
  now_ms = function() return 0 end
end

local next_id = 0
local queue, queue_head, queue_tail = {}, 1, 0
local pending = {}
responses, units, errors = 0, 0, 0
error_samples = {}
unit_latencies = {}
local MAX_SAMPLES = 5
local MAX_LATENCIES = 500000

local function fail(message)
  errors = errors + 1
  if #error_samples < MAX_SAMPLES then
    local seen = false
    for _, m in ipairs(error_samples) do if m == message then seen = true end end
    if not seen then error_samples[#error_samples + 1] = message end
  end
end

-- The raw (still JSON-escaped) requestState string of a reply, or nil.
local function request_state(body)
  local _, e = body:find('"requestState":"', 1, true)
  if not e then return nil end
  local i = e + 1
  local n = #body
  while i <= n do
    local c = body:byte(i)
    if c == 92 then i = i + 2 -- backslash: skip the escaped character
    elseif c == 34 then return body:sub(e + 1, i - 1)
    else i = i + 1 end
  end
  return nil
end

-- The pending entry a reply answers: the first "id":N in it that we are waiting for.
local function answered(body)
  for digits in body:gmatch('"id":(%d+)') do
    local id = tonumber(digits)
    local entry = pending[id]
    if entry then
      pending[id] = nil
      return entry
    end
  end
  return nil
end

request = function()
  next_id = next_id + 1
  local id = next_id
  local entry
  if queue_head <= queue_tail then
    entry = queue[queue_head]
    queue[queue_head] = nil
    queue_head = queue_head + 1
  else
    entry = { step = 1, started = now_ms() }
  end
  pending[id] = entry
  local step = FLOW.steps[entry.step]
  local body
  if entry.state then
    body = step.head .. id .. step.mid .. entry.state .. step.tail
  else
    body = step.head .. id .. step.tail
  end
  return wrk.format("POST", FLOW.path, step.headers, body)
end

response = function(status, headers, body)
  responses = responses + 1
  local entry = answered(body)
  if not entry then return fail("a reply for no request in flight: " .. body:sub(1, 120)) end
  local step = FLOW.steps[entry.step]
  if status ~= 200 then return fail("HTTP " .. status .. ": " .. body:sub(1, 120)) end
  if body:find('"error":{', 1, true) then return fail("JSON-RPC error: " .. body:sub(1, 160)) end
  for _, expected in ipairs(step.expect) do
    if not body:find(expected, 1, true) then return fail("step " .. entry.step .. " reply lacks " .. expected .. ": " .. body:sub(1, 160)) end
  end
  for _, refused in ipairs(step.refuse) do
    if body:find(refused, 1, true) then return fail("step " .. entry.step .. " reply has " .. refused .. ": " .. body:sub(1, 160)) end
  end
  if entry.step < #FLOW.steps then
    local state = request_state(body)
    if not state then return fail("step " .. entry.step .. " reply has no requestState") end
    queue_tail = queue_tail + 1
    queue[queue_tail] = { step = entry.step + 1, state = state, started = entry.started }
  else
    units = units + 1
    if #unit_latencies < MAX_LATENCIES then unit_latencies[#unit_latencies + 1] = now_ms() - entry.started end
  end
end

local threads = {}

setup = function(thread)
  threads[#threads + 1] = thread
end

local function percentile(sorted, p)
  if #sorted == 0 then return "null" end
  local rank = math.ceil(p * #sorted)
  if rank < 1 then rank = 1 end
  return string.format("%.4f", sorted[rank])
end

local function json_string(text)
  return '"' .. text:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

-- This process's CPU time (user + system, all threads) in clock ticks, from /proc.
local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if not file then return -1 end
  local line = file:read("*l")
  file:close()
  local fields = {}
  for field in line:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

done = function(summary, latency, requests)
  local total = { responses = 0, units = 0, errors = 0 }
  local samples, lat = {}, {}
  for _, thread in ipairs(threads) do
    total.responses = total.responses + thread:get("responses")
    total.units = total.units + thread:get("units")
    total.errors = total.errors + thread:get("errors")
    for _, m in ipairs(thread:get("error_samples")) do samples[#samples + 1] = json_string(m) end
    for _, v in ipairs(thread:get("unit_latencies")) do lat[#lat + 1] = v end
  end
  table.sort(lat)
  local socket = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    'WRK_RESULT {"durationUs":%d,"responses":%d,"units":%d,"errors":%d,"socketErrors":%d,"timeouts":%d,' ..
    '"p50Us":%.1f,"p99Us":%.1f,"unitP50Ms":%s,"unitP99Ms":%s,"cpuTicks":%d,"clock":%s,"errorSamples":[%s]}\n',
    summary.duration, total.responses, total.units, total.errors, socket, summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), percentile(lat, 0.5), percentile(lat, 0.99), cpu_ticks(),
    ffi_ok and "true" or "false", table.concat(samples, ",")))
end
