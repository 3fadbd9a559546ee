--- kfjob benchmark driver (run through bench/run.sh, which builds kfbench.so,
-- runs bench/pyref.py and passes its results here).
--
--   lua5.4 bench/bench.lua [--quick] [--rounds R] [--ms T] [--py FILE]
--                          [--only WORD,...] [--cg-run DIR | --cg-report DIR]
--                          [--py-serve CMD]
--
-- --py-serve CMD   runs `CMD --serve` (bench/pyref.py) beside this process and
--                  asks it for one round of the Python baselines after each
--                  round of kfjob's, so both share the machine's state
--
-- Every benchmark is a function of n that does its operation n times. The
-- benchmarks are calibrated to about T ms each, then run in R interleaved
-- rounds (round 1 of every benchmark, round 2 of every benchmark, ...), and
-- each figure is the median round, so that the ratios of one run hold on a
-- shared, noisy machine. Time is process CPU time.
--
-- --cg-run DIR     under valgrind --tool=callgrind --collect-atstart=no:
--                  each benchmark runs N times between callgrind client
--                  requests (one dump per benchmark), counts go to DIR/counts
-- --cg-report DIR  turns the dumps in DIR into instructions per operation and
--                  prints the same tables with Ir instead of ns
--
-- A benchmark, not a test: nothing here asserts a time.

local here = arg[0]:match("^(.*)[/\\][^/\\]*$") or "."
local root = here .. "/.."
local build = os.getenv("KFJOB_BUILD") or (root .. "/build")
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
package.cpath = build .. "/?.so;" .. (os.getenv("KFBENCH_DIR") or (build .. "/bench")) .. "/?.so;"
                .. package.cpath

local opt = { rounds = 7, ms = 20 }
do
  local i = 1
  while arg[i] do
    local a = arg[i]
    if a == "--quick" then opt.quick = true
    elseif a == "--rounds" then i = i + 1; opt.rounds = assert(tonumber(arg[i]), "--rounds N")
    elseif a == "--ms" then i = i + 1; opt.ms = assert(tonumber(arg[i]), "--ms T")
    elseif a == "--py" then i = i + 1; opt.py = arg[i]
    elseif a == "--py-serve" then i = i + 1; opt.py_serve = arg[i]
    elseif a == "--cg-run" then i = i + 1; opt.cg_run = arg[i]
    elseif a == "--cg-report" then i = i + 1; opt.cg_report = arg[i]
    elseif a == "--save" then i = i + 1; opt.save = arg[i]
    elseif a == "--only" then i = i + 1; opt.only = arg[i]
    else error("unknown argument " .. a) end
    i = i + 1
  end
end
if opt.quick then opt.rounds = 1 end

local sformat = string.format
local function out(...) io.stdout:write(sformat(...), "\n") end

---------------------------------------------------------------------------
-- Benchmarks
---------------------------------------------------------------------------

local benches = {}   -- in order; { name, fn, base, cg_n (callgrind count) }
-- --only a,b,c: keep the benchmarks whose name contains one of the words
-- (the baselines of the kept ones stay, so ratios still print)
local function wanted(name)
  if not opt.only then return true end
  for w in opt.only:gmatch("[^,]+") do
    if name:find(w, 1, true) then return true end
  end
  return false
end
local function bench(name, base, fn, cg_n)
  local b = { name = name, base = base, fn = fn, cg_n = cg_n or 2000 }
  benches[#benches + 1] = b
  return b
end
local function select_benches()
  if not opt.only then return end
  local keep = {}
  for _, b in ipairs(benches) do
    if wanted(b.name) then keep[b.name] = true; if b.base then keep[b.base] = true end end
  end
  local out_ = {}
  for _, b in ipairs(benches) do if keep[b.name] then out_[#out_ + 1] = b end end
  benches = out_
end
local skipped = {}   -- name -> reason
local sweep_defs, parse_py_line   -- defined below

local function define()
  local kfb = require "kfbench"
  local kfjob = require "kfjob"
  local template = require "kfjob.template"

  local IMG = "ghcr.io/acme/trainer:2024.11-cuda12"

  -- The workloads as the user writes them: each call builds a fresh table.
  local tables = {}
  tables.W = function()   -- the issue's W (v1 TFJob, 177 bytes)
    return {
      worker = { replicas = 8, image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 8, mem = "32Gi", gpu = 1 },
                 limits = { cpu = 16, mem = "64Gi", gpu = 1 },
                 restart_policy = "on_failure" },
      ps = { replicas = 2, image = "ghcr.io/acme/trainer:2024.11-cuda12",
             requests = { cpu = 4, mem = "16Gi" } },
      chief = { replicas = 1 },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 3600,
                     active_deadline_seconds = 86400, backoff_limit = 3 },
    }
  end
  tables.PT = function()
    return {
      worker = { replicas = 8, image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 8, mem = "32Gi", gpu = 1 },
                 limits = { cpu = 16, mem = "64Gi", gpu = 1 },
                 restart_policy = "on_failure" },
      master = { image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 4, mem = "16Gi" } },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 3600,
                     active_deadline_seconds = 86400, backoff_limit = 3 },
    }
  end
  tables.EL = function()
    return {
      nnodes = "2:8", nproc_per_node = 8, max_restarts = 3,
      worker = { image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 8, mem = "32Gi", gpu = 1 },
                 limits = { cpu = 16, mem = "64Gi", gpu = 1 },
                 restart_policy = "on_failure" },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 3600,
                     active_deadline_seconds = 86400, backoff_limit = 3 },
    }
  end
  tables.MPI = function()
    return {
      worker = { replicas = 8, image = "ghcr.io/acme/trainer:2024.11-cuda12",
                 requests = { cpu = 8, mem = "32Gi", gpu = 1 },
                 limits = { cpu = 16, mem = "64Gi", gpu = 1 },
                 restart_policy = "on_failure",
                 command = { "/usr/sbin/sshd", "-De", "-f", "/home/jobuser/.sshd_config" } },
      launcher = { image = "ghcr.io/acme/trainer:2024.11-cuda12",
                   requests = { cpu = 2, mem = "4Gi" } },
      slots = 8,
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 3600,
                     active_deadline_seconds = 86400, backoff_limit = 3 },
    }
  end
  local kinds = {
    { "W", "TFJob", "TFJob" }, { "PT", "PyTorchJob", "PyTorchJob" },
    { "EL", "Elastic", "Elastic" }, { "MPI", "MPIJob", "MPIJob" },
  }

  local checks = {}
  local W   -- the prebuilt W job

  for _, k in ipairs(kinds) do
    local p, ctor_name, floor_kind = k[1], k[2], k[3]
    local mk, ctor = tables[p], kfjob[ctor_name]
    local job = ctor(mk())
    local tt = job.task_type
    local bytes, json = job:encode(), job:to_json()
    local floor_bytes = kfb.floor_bytes(floor_kind)
    checks[#checks + 1] = { p .. " wire bytes", #bytes, bytes == floor_bytes,
                            "kfjob:encode() == protobuf-c pack of the C-built message" }
    assert(kfjob.decode(tt, bytes) == job and kfjob.from_json(tt, json) == job,
           p .. ": decode/from_json round trip")
    if p == "W" then
      W = job
      checks[#checks + 1] = { "W size", #bytes, #bytes == 177, "177 bytes on the wire (issue)" }
    end
    local floor = p .. ".floor.pack"
    local tbl = p .. ".lua.table"
    bench(floor, nil, function(n) kfb.floor_pack(floor_kind, n) end, 20000)
    bench(p .. ".floor.build_pack", floor, function(n) kfb.floor_build_pack(floor_kind, n) end, 20000)
    bench(tbl, nil, function(n) for _ = 1, n do mk() end end)
    if p == "W" then
      local t0 = mk()
      bench("W.kfjob.construct", tbl, function(n) for _ = 1, n do ctor(t0) end end)
      -- the floor under construct + encode: the table read once through
      -- Lua's C API by a reader that does nothing else, then a prebuilt
      -- job encoded (kfbench.walk)
      bench("W.lua.walk", tbl, function(n) for _ = 1, n do kfb.walk(t0) end end)
      bench("W.floor.table_walk_encode", tbl, function(n)
        for _ = 1, n do kfb.walk(mk()); job:encode() end
      end)
      -- ... and with the object a constructor returns: a userdata of the
      -- job's block (sizeof(kf_job) and W's strings) and of 64 bytes
      if kfb.walk_object then
        -- (the job's block: what constructing W adds to the Lua heap)
        collectgarbage("stop")
        local kb = collectgarbage("count")
        local held = ctor(t0)
        local ud = math.floor((collectgarbage("count") - kb) * 1024)
        collectgarbage("restart")
        assert(held and ud > 0)
        bench("W.floor.table_walk_object_encode", tbl, function(n)
          for _ = 1, n do kfb.walk_object(mk(), ud); job:encode() end
        end)
        bench("W.floor.table_walk_small_object_encode", tbl, function(n)
          for _ = 1, n do kfb.walk_object(mk(), 64); job:encode() end
        end)
      end
      -- under decode: protobuf-c's unpack of W's bytes alone (into a bump
      -- allocator, as the message path unpacks into its arena), which decode
      -- ran before its reader (round 4) and runs now only for the bytes the
      -- reader gives up on
      if kfb.floor_unpack then
        bench("W.floor.decode_unpack", tbl, function(n) kfb.floor_unpack(floor_kind, n) end, 20000)
      end
    end
    bench(p .. ".kfjob.table_construct_encode", tbl, function(n)
      for _ = 1, n do ctor(mk()):encode() end
    end)
    -- methods are called through the object every time, as users write them
    bench(p .. ".kfjob.encode", floor, function(n)
      for _ = 1, n do job:encode() end
    end, 10000)
    bench(p .. ".kfjob.to_json", floor, function(n)
      for _ = 1, n do job:to_json() end
    end)
    if p == "W" then
      bench("W.kfjob.custom", tbl, function(n)
        for _ = 1, n do job:custom() end
      end)
      bench("W.kfjob.task_template", floor, function(n)
        for _ = 1, n do job:task_template() end
      end)
      bench("W.kfjob.table_construct_task_template", "py.flytekit_template", function(n)
        for _ = 1, n do ctor(mk()):task_template() end
      end)
    end
    bench(p .. ".kfjob.decode", tbl, function(n) for _ = 1, n do kfjob.decode(tt, bytes) end end)
    bench(p .. ".kfjob.from_json", tbl, function(n) for _ = 1, n do kfjob.from_json(tt, json) end end)
    if p == "W" then
      bench("W.kfjob.with2", tbl, function(n)
        for i = 1, n do
          job:with{ ["worker.replicas"] = 1 + i % 16, ["ps.replicas"] = 1 + i % 4 }
        end
      end)
      -- manifest: being added; feature-detect (a missing method raises on read)
      local has, m = pcall(function() return job.manifest end)
      local ok, err = false, nil
      if has and m then ok, err = pcall(m, job, { name = "w-bench", image = IMG }) end
      if ok then
        bench("W.kfjob.manifest_table", tbl, function(n)
          local o = { name = "w-bench", image = IMG }
          for _ = 1, n do job:manifest(o) end
        end)
        local yok, yerr = pcall(m, job, { name = "w-bench", image = IMG, format = "yaml" })
        if yok then
          bench("W.kfjob.manifest_yaml", tbl, function(n)
            local o = { name = "w-bench", image = IMG, format = "yaml" }
            for _ = 1, n do job:manifest(o) end
          end)
        else
          skipped["W.kfjob.manifest_yaml"] = "manifest{format='yaml'} failed: " .. tostring(yerr)
        end
      else
        local why = has and tostring(err) or "job:manifest not available in this build"
        skipped["W.kfjob.manifest_table"] = why
        skipped["W.kfjob.manifest_yaml"] = why
      end
    end
  end

  -- The sweeps: worker.replicas x ps.replicas x run_policy.backoff_limit
  -- (50 x 40 x 50 = 100 000 variants; x 10 on worker.replicas for 1 000 000),
  -- named, duplicate-name check on (the default), from the job W and from
  -- W's constructor table.
  local function axis(a, b) local t = {} for i = a, b do t[#t + 1] = i end return t end
  local function matrix(n)
    return { ["worker.replicas"] = axis(1, n > 100000 and 500 or 50), ["ps.replicas"] = axis(1, 40),
             ["run_policy.backoff_limit"] = axis(1, 50) }
  end
  local sweep_opts = { name = "w${worker.replicas}-p${ps.replicas}-b${run_policy.backoff_limit}" }
  local W_table = tables.W()
  -- One sweep of n variants. With stats: the Lua heap peak and the bytes
  -- still held per variant after a full collection at the last variant (the
  -- iterator is alive then, so its name set counts).
  -- The named sweep (issue 45): what every sweep does, a DNS name template
  -- over a version tag (a template variable, not a field: "1.4.0" becomes
  -- "1-4-0", so the names are not provably distinct and the duplicate set
  -- is kept) and a field; 2 000 tags x 50 worker counts (20 000 for 1M).
  local function named_matrix(n)
    local tags = {}
    for i = 0, n // 50 - 1 do
      tags[#tags + 1] = sformat("%d.%d.%d", i // 100, i // 10 % 10, i % 10)
    end
    return { tag = tags, ["worker.replicas"] = axis(1, 50) }
  end
  local named_opts = { name = "bert-${tag}-w${worker.replicas}" }
  local function sweep(n, opts, stats, from_table, named)
    if stats then collectgarbage("collect") end
    local kb0 = collectgarbage("count")
    local peak, i = kb0, 0
    local base = from_table and W_table or W
    local o = opts
    if from_table then o = {} for k, v in pairs(opts) do o[k] = v end o.kind = "TFJob" end
    for _ in template.variants(base, (named and named_matrix or matrix)(n), o) do
      i = i + 1
      if stats and i & 255 == 0 then
        local kb = collectgarbage("count")
        if kb > peak then peak = kb end
        if i == n // 10 // 256 * 256 then stats.peak10 = peak - kb0 end
      end
      if i == n then
        if stats then
          collectgarbage("collect")
          stats.kept = (collectgarbage("count") - kb0) * 1024 / n
          stats.peak = peak - kb0
        end
        break
      end
    end
    assert(i == n, "sweep ended early")
  end
  local SWEEP = opt.quick and 1000 or 100000
  local SWEEP_BIG = opt.quick and 2000 or 1000000
  return {
    checks = checks, sweep = sweep, SWEEP = SWEEP, SWEEP_BIG = SWEEP_BIG, sweep_opts = sweep_opts,
    named_opts = named_opts,

    kfb = kfb, kfjob = kfjob, W = W,
  }
end

---------------------------------------------------------------------------
-- Report
---------------------------------------------------------------------------

-- Targets (issue 13): ratio of NAME to BASE; kind "le" (ratio <= x) or
-- "speedup" (BASE/NAME >= x).
local targets = {
  { "encode vs pack floor", "W.kfjob.encode", "W.floor.pack", "le", 1.0 },
  { "construct+encode vs Lua table", "W.kfjob.table_construct_encode", "W.lua.table", "le", 2.0 },
  { "to_json vs pack floor", "W.kfjob.to_json", "W.floor.pack", "le", 2.0 },
  { "construct+task_template vs flytekit", "W.kfjob.table_construct_task_template",
    "py.flytekit_template", "speedup", 40 },
  { "decode vs Lua table", "W.kfjob.decode", "W.lua.table", "le", 2.0 },
  { "from_json vs Lua table", "W.kfjob.from_json", "W.lua.table", "le", 4.0 },
  { "with (2 fields) vs Lua table", "W.kfjob.with2", "W.lua.table", "le", 1.0 },
}
-- Sweep targets: variants/s by sweep name; memory kept per variant.
local sweep_targets = {
  { "W.sweep.job.100k", 500000 }, { "W.sweep.job.1M", 500000 },
  { "W.sweep.table.100k", 250000 }, { "W.sweep.table.1M", 250000 },
}
local SWEEP_KEPT_MAX = 16        -- B/variant with duplicate detection
local SWEEP_KEPT_DISTINCT = 0.5  -- B/variant when the names are provably distinct (0 + noise)

local function report(res, unit, sweeps, tm)
  -- res: name -> per-op figure (ns or Ir); bench order plus python lines
  local order = {}
  for _, b in ipairs(benches) do order[#order + 1] = { b.name, b.base } end
  for _, n in ipairs{ "py.build_serialize", "py.build_dict", "py.flytekit_template" } do
    order[#order + 1] = { n, "W.floor.pack" }
  end
  out("")
  out("%-40s %14s %9s  %-28s %9s", "NAME", unit .. "_per_op", "ratio", "BASELINE", "x_floor")
  for _, o in ipairs(order) do
    local name, base = o[1], o[2]
    local v = res[name]
    local floor = res[(name:match("^(%u+)%.") or "W") .. ".floor.pack"]
    if v then
      local r = base and res[base] and sformat("%9.2f", v / res[base]) or sformat("%9s", "-")
      out("%-40s %14.1f %s  %-28s %9s", name, v, r, base or "-",
          floor and sformat("%.2f", v / floor) or "-")
    elseif skipped[name] then
      out("%-40s %14s %9s  %s", name, "SKIP", "", skipped[name])
    elseif name:match("^py%.") then
      out("%-40s %14s %9s  %s", name, "SKIP", "", skipped.py or "python baseline not run")
    end
  end
  for _, sw in ipairs(sweeps or {}) do
    out("%-40s %14.1f %9s  %s", sw.name, sw.per, "-", sw.note)
  end

  out("")
  out("%-38s %-11s %8s %9s  %s", "TARGET", "kind", "goal", "value", "result")
  local miss = 0
  local counted = false   -- the earlier issues' targets: shown, not counted
  local function line(label, kind, goal, v, pass, by)
    if v == nil then
      out("%-38s %-11s %8s %9s  %s", label, kind, goal, "-", "SKIP")
      return
    end
    if not pass and counted then miss = miss + 1 end
    out("%-38s %-11s %8s %9s  %s%s", label, kind, goal,
        v >= 1000 and sformat("%.0f", v) or sformat("%.2f", v),
        pass and "met" or "MISSED", pass and "" or by)
  end
  local function ratio_line(label, va, vb, kind, goal)
    local r = va and vb and (kind == "le" and va / vb or vb / va)
    local pass = r and ((kind == "le" and r <= goal) or (kind == "speedup" and r >= goal))
    local by = r and (kind == "le" and sformat("  (%.0f%% over)", (r / goal - 1) * 100)
                      or sformat("  (%.0f%% short)", (1 - r / goal) * 100))
    line(label, kind == "le" and "<= x" or ">= x faster", sformat("%.1f", goal), r, pass, by)
  end
  out("(earlier issues' targets, for regressions; not counted)")
  for _, t in ipairs(targets) do
    ratio_line(t[1], res[t[2]], res[t[3]], t[4], t[5])
  end
  local by_name = {}
  for _, sw in ipairs(sweeps or {}) do by_name[sw.name] = sw end
  for _, t in ipairs(sweep_targets) do
    local sw = by_name[t[1]]
    if sw and sw.vps then
      line(t[1] .. " variants/s", ">= x", sformat("%d", t[2]), sw.vps, sw.vps >= t[2],
           sformat("  (%.0f%% short)", (1 - sw.vps / t[2]) * 100))
    end
  end
  for _, sw in ipairs(sweeps or {}) do
    if sw.kept and not sw.name:find("named", 1, true) then
      local goal = sw.distinct and SWEEP_KEPT_DISTINCT or SWEEP_KEPT_MAX
      line(sw.name .. " kept B/variant", "<= x", sformat("%.1f", goal), sw.kept, sw.kept <= goal,
           sformat("  (%s)", sw.distinct and "names provably distinct: nothing should be kept"
                   or "duplicate detection on"))
    end
  end

  -- issue 45's table: these are counted
  counted = true
  out("")
  out("%-38s %-11s %8s %9s  %s", "TARGET (issue 45; now = the issue's figure)", "kind", "goal",
      "value", "result")
  local tbl = res["W.lua.table"]
  local time = unit == "ns"
  local function timed_only(label, kind, goal)
    out("%-38s %-11s %8s %9s  %s", label, kind, goal, "-", "(a time target: see the timed run)")
  end
  -- the instruction targets: counted on instructions (--callgrind); a timed
  -- run shows its time ratios beside them, not counted
  local function ir_line(label, a, b, kind, goal)
    if not time then return ratio_line(label, a, b, kind, goal) end
    counted = false
    ratio_line(label .. " (time)", a, b, kind, goal)
    counted = true
  end
  if time then out("(the rows marked (time) are on instructions: bench/run.sh --callgrind counts them)") end
  ir_line("table+construct+encode / Lua table", res["W.kfjob.table_construct_encode"], tbl,
             "le", 2.4)
  if res["W.floor.table_walk_encode"] and tbl then
    out("%-38s %-11s %8s %9.2f  %s", "  (floor: table+walk+encode / table)", "(info)", "-",
        res["W.floor.table_walk_encode"] / tbl, "now 3.29; no constructor goes below the floor")
  end
  if res["W.floor.table_walk_object_encode"] and tbl then
    out("%-38s %-11s %8s %9.2f  %s", "  (+ an object of the job's size)", "(info)", "-",
        res["W.floor.table_walk_object_encode"] / tbl, "the walk, a userdata of W's job block, encode")
    out("%-38s %-11s %8s %9.2f  %s", "  (+ a 64-byte object)", "(info)", "-",
        res["W.floor.table_walk_small_object_encode"] / tbl, "the same with the smallest object")
  end
  local named = by_name["W.sweep.named.100k"]
  ir_line("named sweep per variant / Lua table", named and named.per, tbl, "le", 1.5)
  if named and named.vps then
    line("  named sweep variants/s (100k)", ">= x", "500000", named.vps, named.vps >= 500000,
         sformat("  (%.0f%% short)", (1 - named.vps / 500000) * 100))
  end
  local named1m = by_name["W.sweep.named.1M"]
  if named1m and named1m.vps then
    line("  named sweep variants/s (1M)", ">= x", "500000", named1m.vps, named1m.vps >= 500000,
         sformat("  (%.0f%% short)", (1 - named1m.vps / 500000) * 100))
  end
  ir_line("to_json / protobuf-c pack", res["W.kfjob.to_json"], res["W.floor.pack"], "le", 1.3)
  ir_line("decode / Lua table", res["W.kfjob.decode"], tbl, "le", 1.5)
  if res["W.floor.decode_unpack"] and tbl then
    out("%-38s %-11s %8s %9.2f  %s", "  (protobuf-c unpack alone / table)", "(info)", "-",
        res["W.floor.decode_unpack"] / tbl, "the message path's unpack, which decode's reader skips")
  end
  ir_line("from_json / Lua table", res["W.kfjob.from_json"], tbl, "le", 2.5)
  -- the time targets: this run's, or (--callgrind) the timed pass run.sh adds
  local tres = time and res or (tm and tm.res)
  if tres and tres["py.flytekit_template"] then
    ratio_line("flytekit path / construct+task_template (time)",
               tres["W.kfjob.table_construct_task_template"], tres["py.flytekit_template"],
               "speedup", 60)
  else
    timed_only("flytekit path / construct+task_template", ">= x faster", "60.0")
  end
  if res["convert.kfjob"] and res["convert.pyyaml"] then
    ratio_line("convert 10 000 docs to Lua / CSafeLoader", res["convert.kfjob"],
               res["convert.pyyaml"], "le", 0.8)
  elseif skipped.convert then
    out("%-38s %-11s %8s %9s  %s", "convert 10 000 docs to Lua / CSafeLoader", "<= x", "0.8", "-",
        skipped.convert)
    if skipped.convert:find("FAILED", 1, true) then miss = miss + 1 end
  elseif time then
    line("convert 10 000 docs to Lua / CSafeLoader", "<= x", "0.8", nil)
  else
    timed_only("convert 10 000 docs to Lua / CSafeLoader", "<= x", "0.8")
  end
  named1m = named1m or (tm and tm.sweeps["W.sweep.named.1M"])
  if named1m and named1m.kept then
    line("memory kept per variant, 1M named sweep", "<= x B", "16.0", named1m.kept,
         named1m.kept <= SWEEP_KEPT_MAX, "  (duplicate detection on)")
    if not time and named1m.vps then
      line("  named sweep variants/s (1M, timed)", ">= x", "500000", named1m.vps,
           named1m.vps >= 500000, sformat("  (%.0f%% short)", (1 - named1m.vps / 500000) * 100))
    end
  elseif not time then
    timed_only("memory kept per variant, 1M named sweep", "<= x B", "16.0")
  end
  return miss
end

parse_py_line = function(line, res, hexes)
  local a, b, c = line:match("^(%S+)%s+(%S+)%s*(%S*)")
  if a == "hex" then hexes[b] = c
  elseif a == "info" then hexes[b] = c
  elseif a == "skip" then skipped.py = line:sub(6)
  elseif a == "count" then res[b] = tonumber(c)
  elseif a and tonumber(b) then res[a] = tonumber(b) end
end

local function read_py(file, res, hexes)
  if not file then return end
  local f = io.open(file)
  if not f then skipped.py = "no python results"; return end
  for line in f:lines() do parse_py_line(line, res, hexes) end
  f:close()
end

local function tohex(s) return (s:gsub(".", function(c) return sformat("%02x", c:byte()) end)) end

-- `kfjob convert` of a stream of 10 000 manifest documents to Lua (-f lua)
-- against PyYAML's C loader parsing the same stream alone (issue 45), CPU
-- time of each, interleaved (bench/convert.py).  The documents: kfjob's own
-- manifests of four jobs on three targets, as bench/import.lua makes them.
local function convert_bench(res)
  if not wanted("convert") then return end
  local kfjob = require "kfjob"
  local N = opt.quick and 200 or 10000
  local jobs = {
    { kfjob.PyTorchJob{ worker = { replicas = 3, limits = { gpu = 2 } }, accelerator = "nvidia-a100",
                        shared_memory = true }, "operator" },
    { kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2, run_policy = { backoff_limit = 3 } },
      "mpi-operator" },
    { kfjob.PyTorchJob{ worker = { replicas = 1 }, run_policy = { active_deadline_seconds = 60 } },
      "trainer-2.3" },
    { kfjob.TFJob{ worker = { replicas = 2 }, ps = { replicas = 1 } }, "operator" },
  }
  local docs = {}
  for i = 1, N do
    local j = jobs[(i - 1) % #jobs + 1]
    docs[i] = j[1]:manifest{ name = "job-" .. i, image = "img:1", target = j[2], format = "yaml",
                             args = { "python", "train.py" }, labels = { team = "ml" } }
  end
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write(table.concat(docs, "---\n"))
  f:close()
  local py = os.getenv("PYTHON") or "/usr/bin/python3"
  local p = assert(io.popen(sformat("%s %s/bench/convert.py %s/kfjob %s %d 2>&1", py, root, build,
                                    path, opt.quick and 1 or 3)))
  for l in p:lines() do
    local a, b = l:match("^(%S+)%s+(.*)$")
    if a == "skip" then skipped.convert = "SKIP " .. b
    elseif a == "failed" then skipped.convert = "FAILED (kfjob convert " .. b .. ")"
    elseif a and a:match("^convert%.") then res[a] = tonumber(b) end
  end
  p:close()
  os.remove(path)
  if res["convert.kfjob"] then
    out("info  convert: %d documents, kfjob convert -f lua %.3f s, CSafeLoader %.3f s", N,
        res["convert.kfjob"], res["convert.pyyaml"])
    res["convert.kfjob"], res["convert.pyyaml"] = res["convert.kfjob"] * 1e9, res["convert.pyyaml"] * 1e9
  end
end

---------------------------------------------------------------------------
-- Modes
---------------------------------------------------------------------------

local function checks_and_python(env, res, hexes)
  hexes = hexes or {}
  read_py(opt.py, res, hexes)
  local function line(what, n, ok, note)
    out("check %-18s %4d bytes  %-8s %s", what, n, ok and "ok" or "MISMATCH", note)
    if not ok then error("benchmark check failed: " .. what, 0) end
  end
  for _, c in ipairs(env.checks) do line(c[1], c[2], c[3], c[4]) end
  if hexes["W.encode"] then
    line("W python bytes", #hexes["W.encode"] // 2, hexes["W.encode"] == tohex(env.W:encode()),
         "python3-protobuf SerializeToString == kfjob:encode()")
    line("W task_template", #hexes["W.task_template"] // 2,
         hexes["W.task_template"] == tohex(env.W:task_template()),
         "flytekit-path TaskTemplate bytes == kfjob:task_template()")
  end
  if hexes["py.runtime"] then out("info  python runtime: %s", hexes["py.runtime"]) end
  for name, why in pairs(skipped) do out("info  skipped %s: %s", name, why) end
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- The sweeps: from the job and from its constructor table, 100 000 and
-- 1 000 000 variants, names from a template that names every axis (provably
-- distinct: nothing needs keeping), and once with a name function (not
-- provable: the duplicate check keeps a set).
sweep_defs = function(env)
  local o = env.sweep_opts
  local fn_opts = { name = function(p)
    return "w" .. p["worker.replicas"] .. "-p" .. p["ps.replicas"] .. "-b" .. p["run_policy.backoff_limit"]
  end }
  return {
    { name = "W.sweep.job.100k", n = env.SWEEP, opts = o, runs = 3, distinct = true },
    { name = "W.sweep.table.100k", n = env.SWEEP, opts = o, runs = 3, distinct = true, from_table = true },
    { name = "W.sweep.job.fn.100k", n = env.SWEEP, opts = fn_opts, runs = 1 },
    { name = "W.sweep.job.1M", n = env.SWEEP_BIG, opts = o, runs = 1, distinct = true },
    { name = "W.sweep.table.1M", n = env.SWEEP_BIG, opts = o, runs = 1, distinct = true, from_table = true },
    { name = "W.sweep.named.100k", n = env.SWEEP, opts = env.named_opts, runs = 3, named = true },
    { name = "W.sweep.named.1M", n = env.SWEEP_BIG, opts = env.named_opts, runs = 1, named = true },
  }
end

-- Python baselines interleaved: `CMD --serve` beside this process, one
-- round of its benchmarks after each round of ours.
local function py_server(cmd, res, hexes)
  local fifo = os.tmpname()
  os.remove(fifo)
  assert(os.execute("mkfifo " .. fifo), "mkfifo failed")
  local rd = assert(io.popen(cmd .. " --serve < " .. fifo))
  local wr = assert(io.open(fifo, "w"))
  local function lines_until(word, f)
    for l in rd:lines() do
      if l == word then return true end
      f(l)
    end
    error("python baseline ended early (" .. cmd .. ")", 0)
  end
  lines_until("ready", function(l) parse_py_line(l, res, hexes) end)
  local times = {}
  return {
    round = function()
      wr:write("round\n"); wr:flush()
      lines_until("end", function(l)
        local a, b = l:match("^(%S+)%s+(%S+)")
        times[a] = times[a] or {}
        table.insert(times[a], tonumber(b))
      end)
    end,
    close = function() wr:close(); rd:close(); os.remove(fifo) end,
    results = function() for k, v in pairs(times) do res[k] = median(v) end end,
  }
end

local function run_timed()
  local env = define()
  select_benches()
  local now = env.kfb.now
  local res, hexes = {}, {}
  local py = opt.py_serve and py_server(opt.py_serve, res, hexes)
  checks_and_python(env, res, hexes)
  local target = opt.ms * 1e6
  for _, b in ipairs(benches) do   -- calibrate to ~opt.ms per round
    if opt.quick then
      b.n = 2
    else
      local n = 1
      while true do
        collectgarbage("collect")
        local t0 = now(); b.fn(n); local t = now() - t0
        if t >= target / 4 or n >= 1 << 24 then
          b.n = math.max(1, math.floor(n * target / math.max(t, 1)))
          break
        end
        n = n * 2
      end
    end
    b.times = {}
  end
  for _ = 1, opt.rounds do          -- interleaved rounds
    for _, b in ipairs(benches) do
      collectgarbage("collect")
      local t0 = now(); b.fn(b.n); local t = now() - t0
      b.times[#b.times + 1] = t / b.n
    end
    if py then py.round() end
  end
  for _, b in ipairs(benches) do res[b.name] = median(b.times) end
  if py then py.results() end

  local sweeps = {}
  for _, sd in ipairs(sweep_defs(env)) do
    if wanted(sd.name) then
      local per, stats = {}, nil
      for r = 1, opt.quick and 1 or sd.runs do
        local st = {}
        local t0 = now()
        env.sweep(sd.n, sd.opts, st, sd.from_table, sd.named)
        per[r] = (now() - t0) / sd.n   -- includes two full collections (negligible at 100k)
        if r == 1 then stats = st end
      end
      local p = median(per)
      sweeps[#sweeps + 1] = {
        name = sd.name, per = p, vps = 1e9 / p, kept = stats.kept, distinct = sd.distinct,
        note = sformat("%d variants: %.0f/s, heap peak +%.0f KiB (+%.0f KiB at %d), kept %.1f B/variant",
                       sd.n, 1e9 / p, stats.peak, stats.peak10 or 0, sd.n // 10, stats.kept),
      }
    end
  end
  if py then py.close() end
  if opt.save then   -- the time targets of a --callgrind run (run.sh)
    local f = assert(io.open(opt.save, "w"))
    for k, v in pairs(res) do f:write("time ", k, " ", sformat("%.17g", v), "\n") end
    for _, sw in ipairs(sweeps) do
      f:write("sweep ", sw.name, " ", sformat("%.17g %.17g %.17g", sw.per, sw.vps, sw.kept), "\n")
    end
    f:close()
    return
  end
  convert_bench(res)
  local miss = report(res, "ns", sweeps)
  out("")
  out("%d target(s) missed", miss)
end

local function run_cg(dir)
  local env = define()
  select_benches()
  local kfb = env.kfb
  if not (kfb.on_valgrind and kfb.have_callgrind) then
    error("--cg-run: not running under callgrind (or kfbench.so built without valgrind/callgrind.h)", 0)
  end
  local f = assert(io.open(dir .. "/counts", "a"))
  for _, b in ipairs(benches) do
    local n = opt.quick and 10 or b.cg_n
    b.fn(math.max(1, n // 10))
    collectgarbage("collect")
    kfb.cg_start(); b.fn(n); kfb.cg_stop(b.name)
    f:write("count ", b.name, " ", n, "\n")
  end
  for _, sd in ipairs(sweep_defs(env)) do
    if wanted(sd.name) and sd.n <= env.SWEEP then   -- the 1M sweeps: time only
      local n = opt.quick and 300 or 5000
      env.sweep(n // 10, sd.opts, nil, sd.from_table, sd.named)
      collectgarbage("collect")
      kfb.cg_start(); env.sweep(n, sd.opts, nil, sd.from_table, sd.named); kfb.cg_stop(sd.name)
      f:write("count ", sd.name, " ", n, "\n")
    end
  end
  f:close()
end

local function report_cg(dir)
  -- define the benchmark list (names, baselines) without running anything
  define()
  local counts, res = {}, {}
  read_py(dir .. "/counts", counts, {})
  local ls = io.popen("ls " .. dir)
  for file in ls:lines() do
    if file:match("^cg%.") then
      local name, total
      for l in io.lines(dir .. "/" .. file) do
        name = name or l:match("^desc: Trigger: Client Request: (%S+)")
        total = l:match("^totals: (%d+)") or total
      end
      if name and total and counts[name] then res[name] = tonumber(total) / counts[name] end
    end
  end
  ls:close()
  local sweeps = {}
  for _, sd in ipairs(sweep_defs({ SWEEP = 0, SWEEP_BIG = 0 })) do
    if res[sd.name] then
      sweeps[#sweeps + 1] = { name = sd.name, per = res[sd.name], ir = res[sd.name],
                              note = "Ir per variant" }
      res[sd.name] = nil
    end
  end
  local tm = nil   -- run.sh's timed pass for the time targets
  local tf = io.open(dir .. "/timed")
  if tf then
    tm = { res = {}, sweeps = {} }
    for l in tf:lines() do
      local what, name, a, b, c = l:match("^(%S+) (%S+) (%S+) ?(%S*) ?(%S*)")
      if what == "time" then tm.res[name] = tonumber(a)
      elseif what == "sweep" then
        tm.sweeps[name] = { per = tonumber(a), vps = tonumber(b), kept = tonumber(c) }
      end
    end
    tf:close()
  end
  out("instructions per operation (valgrind --tool=callgrind), dumps in %s", dir)
  convert_bench(res)   -- a time target: timed here, outside valgrind
  local miss = report(res, "Ir", sweeps, tm)
  out("")
  out("%d target(s) missed (instruction counts)", miss)
end

if opt.cg_run then run_cg(opt.cg_run)
elseif opt.cg_report then report_cg(opt.cg_report)
else run_timed() end
