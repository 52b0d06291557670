-- wrk script for `fourfold serve --http`: GET /api/$OP?pos=<move string> cycling through
-- Test_L2_R1 (run from the repository root; OP defaults to solve). See BENCHMARKS.md.
--   wrk -t2 -c8 -d10s -s cli/benches/serve_wrk.lua http://127.0.0.1:8080
local positions = {}
for line in io.lines("tests/data/Test_L2_R1") do
  positions[#positions + 1] = line:match("^(%d*)")
end
local op = os.getenv("OP") or "solve"
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/api/" .. op .. "?pos=" .. positions[(i % #positions) + 1])
end
