-- Specs for the C path of kfjob.template.variants (kfjob._sweep) and the
-- name set (kfjob._nameset): every variant, name, parameter set and error
-- must be what the template layer alone gives (it is the reference: the
-- same sweep with the C functions removed), and the memory a sweep keeps.

local kfjob = require "kfjob"
local template = require "kfjob.template"

local W = kfjob.TFJob {
  worker = { replicas = 8, image = "img:1", requests = { cpu = 8, mem = "32Gi", gpu = 1 } },
  ps = { replicas = 2, image = "img:1" }, chief = { replicas = 1 },
  run_policy = { clean_pod_policy = "all", backoff_limit = 3 },
}

-- Every variant of a sweep as text (name, bytes, params), then OK or the
-- error with its location.
local function run(base, m, o)
  local out = {}
  local ok, err = pcall(function()
    for name, job, p in template.variants(base, m, o) do
      local ks = {}
      for k, v in pairs(p) do ks[#ks + 1] = k .. "=" .. tostring(v) end
      table.sort(ks)
      out[#out + 1] = name .. " " .. job:to_json() .. " " .. table.concat(ks, ",")
    end
  end)
  out[#out + 1] = ok and "OK" or ("ERR " .. tostring(err))
  return table.concat(out, "\n")
end

-- The same sweep without the C functions.
local function reference(base, m, o)
  local s, n = kfjob._sweep, kfjob._nameset
  kfjob._sweep, kfjob._nameset = nil, nil
  local ok, r = pcall(run, base, m, o)
  kfjob._sweep, kfjob._nameset = s, n
  assert(ok, r)
  return r
end

describe("template.variants in C", function()
  local cases = {
    { "names from every axis", { ["worker.replicas"] = { 1, 2, 3 }, ["ps.replicas"] = { 1, 2 } },
      { name = "w${worker.replicas}-p${ps.replicas}" } },
    { "a duplicate name", { ["worker.replicas"] = { 1, 2, 3 }, ["ps.replicas"] = { 1, 2 } },
      { name = "w${worker.replicas}" } },
    { "duplicates allowed", { ["worker.replicas"] = { 1, 2, 3 }, ["ps.replicas"] = { 1, 2 } },
      { name = "w${worker.replicas}", unique = false } },
    { "placeholders side by side (1,11 and 11,1)",
      { ["worker.replicas"] = { 1, 11 }, ["ps.replicas"] = { 1, 11 } },
      { name = "w${worker.replicas}${ps.replicas}" } },
    { "a variant the core refuses", { ["worker.replicas"] = { 1, 0, 3 } },
      { name = "w${worker.replicas}" } },
    { "a name dns_name changes", { ["worker.image"] = { "A:1", "b:2" } },
      { name = "${worker.image}" } },
    { "a duplicate only after dns_name", { ["worker.image"] = { "a", "A" } },
      { name = "x-${worker.image}" } },
    { "enum and float values",
      { ["worker.replicas"] = { 1, 2 }, ["run_policy.clean_pod_policy"] = { "all", "running" },
        ["worker.requests.gpu"] = { 1, 2.5 } },
      { name = "j-${worker.replicas}-${run_policy.clean_pod_policy}-${worker.requests.gpu}" } },
    { "a name too long", { ["worker.replicas"] = { 1, 2 } },
      { name = ("a"):rep(62) .. "${worker.replicas}" } },
    { "a name starting with a digit", { ["worker.replicas"] = { 1, 2 } },
      { name = "1-${worker.replicas}" } },
    { "a name ending in '-'", { ["worker.replicas"] = { 1, 2 }, ["ps.replicas"] = { 3 } },
      { name = "w${worker.replicas}-${ps.replicas}-" } },
    { "a wrong value type", { ["worker.replicas"] = { 1, 2 }, ["run_policy.backoff_limit"] = { true } },
      { name = "w${worker.replicas}" } },
    { "an axis not in the name", { ["worker.replicas"] = { 1, 2 }, ["ps.replicas"] = { 1, 2 } },
      { name = "w${worker.replicas}-x", unique = true } },
    { "the same text twice on an axis", { ["worker.requests.gpu"] = { 1, 1.0 } },
      { name = "g${worker.requests.gpu}" } },
    -- variables only the name reads (issue 45), and names dns_name changes
    { "a version tag variable", { tag = { "1.4.0", "1.5.0-rc1", "2.0" }, ["worker.replicas"] = { 2, 4 } },
      { name = "bert-${tag}-w${worker.replicas}" } },
    { "a tag that collides after dns_name", { tag = { "1.4.0", "1-4-0", "1..4..0" },
      ["worker.replicas"] = { 2 } }, { name = "bert-${tag}-w${worker.replicas}" } },
    { "a variable only: no field", { tag = { "a", "b" } }, { name = "x-${tag}" } },
    { "a variable first, a digit and upper case", { tag = { "9Lives", "--X--", "_a_" },
      ["worker.replicas"] = { 1, 2 } }, { name = "${tag}.W${worker.replicas}" } },
    { "a variable with nothing to name", { tag = { "..", "a" }, ["worker.replicas"] = { 1 } },
      { name = "${tag}" } },
    { "a variable name cut and hashed", { tag = { ("x"):rep(60), ("x"):rep(59) .. "." },
      ["worker.replicas"] = { 1 } }, { name = "${tag}-w${worker.replicas}" } },
    { "a variable with bytes past ASCII", { tag = { "caf\195\169", "na\195\175ve" },
      ["worker.replicas"] = { 1 } }, { name = "t-${tag}-w${worker.replicas}" } },
    { "a variable and a refused variant", { tag = { "1.0" }, ["worker.replicas"] = { 1, 0 } },
      { name = "t-${tag}-w${worker.replicas}" } },
    { "a bool and a number variable", { on = { true, false }, lr = { 0.5, 1e-3 },
      ["worker.replicas"] = { 1 } }, { name = "r-${on}-${lr}-${worker.replicas}" } },
    -- keys the C path does not resolve to a plain leaf: the template layer
    { "a key no row has", { ["worker.replica"] = { 1, 2 } }, { name = "w${worker.replica}" } },
    { "an alias key", { ["worker.requests.memory"] = { "1Gi", "2Gi" }, ["ps.replicas"] = { 1, 2 } },
      { name = "m${ps.replicas}-${worker.requests.memory}" } },
    { "a group as the key", { ["chief"] = { 1 } }, { name = "c${chief}" } },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": as the template layer alone", function()
      assert.equal(reference(W, c[2], c[3]), run(W, c[2], c[3]))
    end)
  end

  -- a variant is the base's block copied with its pointers moved: string
  -- lists and a value tree (which is laid out instead) as well
  local function mpi()
    return kfjob.MPIJob { worker = { replicas = 2, image = "img:1", command = { "sshd", "-De" } },
                          launcher = { image = "launch:1", command = { "mpirun", "python", "t.py" } },
                          slots = 2 }
  end
  local bases = {
    { "string lists", mpi },
    { "a pod template", function()
        return kfjob.PyTorchJob { worker = { replicas = 2, image = "img:1" },
                                  pod_template = { metadata = { labels = { team = "nlp" } } } }
      end },
  }
  for _, b in ipairs(bases) do
    it("a base with " .. b[1] .. ": as the template layer alone, and owning its strings", function()
      local m = { ["worker.replicas"] = { 1, 2, 3 }, ["run_policy.backoff_limit"] = { 1, 2 } }
      local o = { name = "v${worker.replicas}-${run_policy.backoff_limit}" }
      local want = reference(b[2](), m, o)
      assert.equal(want, run(b[2](), m, o))
      local kept = {}
      for name, job in template.variants(b[2](), m, o) do kept[#kept + 1] = { name, job } end
      for _ = 1, 3 do collectgarbage("collect") end
      local junk = {}
      for k = 1, 500 do junk[k] = mpi():with{ ["worker.image"] = ("z"):rep(k % 40 + 1) } end
      assert.are.equal(500, #junk)   -- new jobs where the base's block was
      local lines = {}
      for line in want:gmatch("[^\n]+") do
        local nj = line:match("^(%S+ %S+) ")
        if nj then lines[#lines + 1] = nj end
      end
      assert.equal(#lines, #kept)
      for i, v in ipairs(kept) do assert.equal(lines[i], v[1] .. " " .. v[2]:to_json()) end
    end)
  end

  local T = {
    worker = { replicas = 8, image = "img:1", requests = { cpu = 8, mem = "32Gi", gpu = 1 } },
    ps = { replicas = 2, image = "img:1" }, chief = { replicas = 1 },
    run_policy = { clean_pod_policy = "all", backoff_limit = 3 },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ", from a constructor table: as the template layer alone", function()
      local o = { kind = "TFJob" }
      for k, v in pairs(c[3]) do o[k] = v end
      assert.equal(reference(T, c[2], o), run(T, c[2], o))
    end)
  end
  local tables = {
    { "a deprecated count", { num_workers = 2, ps = { replicas = 1 } }, { ["worker.replicas"] = { 1, 2 } } },
    { "a deprecated count as the axis", { worker = { replicas = 2 } }, { num_workers = { 1, 2 } } },
    { "an alias", { worker = { replicas = 2, requests = { memory = "1Gi" } } },
      { ["worker.requests.mem"] = { "2Gi", "3Gi" } } },
    { "a group object", { worker = kfjob.Worker { replicas = 2 } }, { ["worker.replicas"] = { 1, 3 } } },
    { "a path the spec lacks", { worker = { replicas = 2 } }, { ["run_policy.backoff_limit"] = { 1, 3 } } },
    { "a base the core refuses", { worker = { image = "x" } }, { ["worker.replicas"] = { 1, 3 } } },
  }
  for _, c in ipairs(tables) do
    it(c[1] .. ": as the template layer alone", function()
      local o = { kind = "TFJob", name = "v-${" .. next(c[3]) .. "}" }
      assert.equal(reference(c[2], c[3], o), run(c[2], c[3], o))
    end)
  end

  it("a name function: the set in C finds the same duplicate", function()
    local m = { ["worker.replicas"] = { 1, 2, 3 }, ["ps.replicas"] = { 1, 2 } }
    local o = { name = function(p) return "w" .. p["worker.replicas"] end }
    local got = run(W, m, o)
    assert.matches("duplicate name 'w1' for variant 1 {ps.replicas=1, worker.replicas=1} "
                   .. "and variant 4 {ps.replicas=2, worker.replicas=1}", got, 1, true)
    assert.equal(reference(W, m, o), got)
  end)

  -- Full collections until the heap stops shrinking: each cycle halves the
  -- string table at most once (lstring.c/lgc.c checkSizes), so one collect
  -- after a loop that doubled it twice leaves a size no variant holds.
  local function settle()
    local last
    repeat
      last = collectgarbage("count")
      collectgarbage("collect")
    until collectgarbage("count") >= last
  end

  -- bytes the iterator still holds per variant at its last variant
  local function kept(m, o, n)
    -- warm up first with as many variants: LuaJIT's traces live in the Lua
    -- heap, and Lua 5.1's string table doubles (256 kB) once its dead names
    -- outnumber its slots, which depends on what earlier specs left there
    local w = 0
    for _ in template.variants(W, m, o) do
      w = w + 1
      if w == n then break end
    end
    settle()
    local kb0, i = collectgarbage("count"), 0
    for _ in template.variants(W, m, o) do
      i = i + 1
      if i == n then break end
    end
    settle()
    return (collectgarbage("count") - kb0) * 1024 / n
  end
  local function axis(n) local t = {} for i = 1, n do t[i] = i end return t end
  local m = { ["worker.replicas"] = axis(50), ["ps.replicas"] = axis(40),
              ["run_policy.backoff_limit"] = axis(50) }

  -- #slow: 100 000 variants each, minutes under valgrind's GC-stressed run
  it("names provably distinct: nothing kept per variant #slow", function()
    local b = kept(m, { name = "w${worker.replicas}-p${ps.replicas}-b${run_policy.backoff_limit}" },
                   100000)
    assert.is_true(b < 0.5, ("%.2f bytes per variant"):format(b))
  end)

  it("other names: at most 16 bytes per variant for the duplicate check #slow", function()
    local b = kept(m, { name = function(p)
      return "w" .. p["worker.replicas"] .. "-p" .. p["ps.replicas"] .. "-b" .. p["run_policy.backoff_limit"]
    end }, 100000)
    assert.is_true(b <= 16, ("%.2f bytes per variant"):format(b))
    -- a template dns_name changes (upper case): each name is made by the
    -- template layer, the C path keeps the set
    b = kept(m, { name = "W${worker.replicas}-p${ps.replicas}-b${run_policy.backoff_limit}" }, 50000)
    assert.is_true(b <= 16, ("%.2f bytes per variant"):format(b))
  end)
end)
