-- wrk script of bench/api.bench.mjs. BENCH_MODE picks the request:
--   page-fixed   GET /api/v1.5/sku/?limit=100&offset=5000 (the same page each time)
--   page-random  GET /api/v1.5/sku/?limit=100&offset=<random 0..BENCH_SKUS-100>
--   brand-get    GET /api/v1.5/brands/brand-<random 0..BENCH_BRANDS-1>/
--   brand-post   POST /api/v1.5/brands/ {"name": "Bench brand"}
--   health       GET /health
--   office       a SKU page of 50 and a visit page of 50 in turn, at random offsets (BENCH_VISITS
--                visits): the office's screens on a central (bench/sync-push.bench.mjs)
--   mixed        19 page-random GETs for each POST of a brand (a central serving screens while
--                laptops push): each thread's every 20th request is the POST
-- BENCH_TOKEN is the API key. done() prints one JSON line the bench reads, with the 2xx answers
-- and the others counted apart (wrk's own count of requests includes both).
local mode = os.getenv("BENCH_MODE") or "page-random"
local skus = tonumber(os.getenv("BENCH_SKUS") or "10000")
local brands = tonumber(os.getenv("BENCH_BRANDS") or "100")
local visits = tonumber(os.getenv("BENCH_VISITS") or "1000")
wrk.headers["Authorization"] = "Token " .. (os.getenv("BENCH_TOKEN") or "")
wrk.headers["Content-Type"] = "application/json"

local counter = 0
local threads = {}
function setup(thread)
  counter = counter + 1
  thread:set("seed", counter)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() * 1000 + (seed or 0))
  ok2xx = 0
  non2xx = 0
end

function response(status, headers, body)
  if status >= 200 and status < 300 then
    ok2xx = ok2xx + 1
  else
    non2xx = non2xx + 1
  end
end

local sent = 0
function request()
  if mode == "office" then
    sent = sent + 1
    if sent % 2 == 0 then
      return wrk.format("GET", "/api/v1.5/visits/?limit=50&offset=" .. math.random(0, math.max(visits - 50, 0)))
    end
    return wrk.format("GET", "/api/v1.5/sku/?limit=50&offset=" .. math.random(0, math.max(skus - 50, 0)))
  elseif mode == "mixed" then
    sent = sent + 1
    if sent % 20 == 0 then
      return wrk.format("POST", "/api/v1.5/brands/", nil, '{"name": "Bench brand"}')
    end
    return wrk.format("GET", "/api/v1.5/sku/?limit=100&offset=" .. math.random(0, skus - 100))
  elseif mode == "page-fixed" then
    return wrk.format("GET", "/api/v1.5/sku/?limit=100&offset=5000")
  elseif mode == "page-random" then
    return wrk.format("GET", "/api/v1.5/sku/?limit=100&offset=" .. math.random(0, skus - 100))
  elseif mode == "brand-get" then
    return wrk.format("GET", "/api/v1.5/brands/brand-" .. math.random(0, brands - 1) .. "/")
  elseif mode == "brand-post" then
    return wrk.format("POST", "/api/v1.5/brands/", nil, '{"name": "Bench brand"}')
  else
    return wrk.format("GET", "/health")
  end
end

function done(summary, latency, requests)
  local ok, other = 0, 0
  for _, t in ipairs(threads) do
    ok = ok + t:get("ok2xx")
    other = other + t:get("non2xx")
  end
  local bad = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('WRK_RESULT {"requests": %d, "ok2xx": %d, "non2xx": %d, "seconds": %.3f, "bad": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, "max_us": %d}\n',
    summary.requests, ok, other, summary.duration / 1e6, bad, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
