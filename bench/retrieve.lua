-- wrk script: POST /retrieve with a fixed question, print one JSON summary line.
--
-- Usage: wrk -t2 -c8 -d10s --latency -s bench/retrieve.lua http://127.0.0.1:PORT/retrieve
-- RETRIEVE_BODY (env) overrides the request body so run_ceiling.py can keep a
-- single source of truth for the payload it also sends with urllib.

local body = os.getenv("RETRIEVE_BODY")
if body == nil or body == "" then
  body = '{"question":"Will write_text replace the contents of an existing file?","version":"3.12"}'
end

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"

-- wrk's own summary.errors.status only counts status > 399, so 1xx/3xx would
-- pass silently.  Counting non-2xx needs a response() hook, which makes wrk
-- copy every response's headers and body into Lua; WRK_COUNT_NON2XX=0 turns
-- it off when that client-side cost matters more than 3xx detection.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

if os.getenv("WRK_COUNT_NON2XX") ~= "0" then
  non2xx = 0  -- global on purpose: done() reads it per thread via thread:get()

  function response(status, headers, body)
    if status < 200 or status > 299 then
      non2xx = non2xx + 1
    end
  end
end

function done(summary, latency, requests)
  local non2xx_total = 0
  for _, t in ipairs(threads) do
    non2xx_total = non2xx_total + (t:get("non2xx") or 0)
  end
  local e = summary.errors
  local socket_errors = e.connect + e.read + e.write + e.timeout
  -- Without the hook, fall back to wrk's >399 count so errors are never hidden.
  local status_errors = non2xx_total
  if os.getenv("WRK_COUNT_NON2XX") == "0" then
    status_errors = e.status
  end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"rps":%.2f,"bytes":%d,'
      .. '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,'
      .. '"errors":%d,"non2xx":%d,"socket_errors":%d,'
      .. '"connect":%d,"read":%d,"write":%d,"timeout":%d,"status_gt399":%d}\n',
    summary.requests, summary.duration, summary.requests / seconds, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean,
    status_errors + socket_errors, status_errors, socket_errors,
    e.connect, e.read, e.write, e.timeout, e.status))
end
