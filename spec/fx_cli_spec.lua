-- Faults black-box testers found in the CLI, the schema and the rules'
-- messages (fx_cli), one describe per fault; the expected values come from
-- the SPEC and Kubernetes / operator semantics.
local kfjob = require "kfjob"
local util = require "util"

local PY = "env -u LD_PRELOAD python3"

-- python3-jsonschema's verdict on a document (JSON text) under a schema
-- (JSON text): true/false, or nil when jsonschema is not installed.
local function jsonschema_valid(schema, doc)
  if not util.sh_ok(PY .. " -c 'import jsonschema' >/dev/null 2>&1") then return nil end
  local s, d = util.tmp(schema, ".json"), util.tmp(doc, ".json")
  local ok = util.sh_ok(PY .. " -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])),"
                        .. " json.load(open(sys.argv[1])))' " .. s .. " " .. d .. " >/dev/null 2>&1")
  os.remove(s); os.remove(d)
  return ok
end

describe("schema: nproc_per_node's words (R10)", function()
  local doc = '{"kind":"Elastic","nnodes":2,"nproc_per_node":"auto","container":{"image":"i"}}'

  it("the schema takes auto, cpu and gpu as check --target does", function()
    for _, target in ipairs({ false, "trainer-2.3", "operator" }) do
      local text = target and kfjob.schema("Elastic", { target = target }) or kfjob.schema()
      local node = kfjob.read_yaml(text)["$defs"].Elastic.properties.nproc_per_node
      assert.is_table(node.anyOf)
      assert.are.same({ "auto", "cpu", "gpu" }, node.anyOf[2].enum)
      assert.are.equal(1, node.anyOf[1].minimum)
      local v = jsonschema_valid(text, doc)
      if v ~= nil then assert.is_true(v) end
    end
  end)

  it("explain and kfjob.fields give the words", function()
    assert.are.same({ "auto", "cpu", "gpu" }, kfjob.fields("Elastic").nproc_per_node.values)
    assert.are.same({ "auto", "cpu", "gpu" }, kfjob.fields("PyTorchJob").nproc_per_node.values)
    if not util.cli_ok then return end
    local code, out = util.kfjob("explain", "Elastic.nproc_per_node")
    assert.are.equal(0, code)
    assert.matches("nproc_per_node <integer or one of auto, cpu, gpu>", out, 1, true)
  end)

  it("check --target accepts the document the schema accepts", function()
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/job.json", doc)
    for _, target in ipairs({ "trainer-2.3", "operator" }) do
      local code, _, err = util.kfjob("check", path, "--target", target)
      assert.are.equal(0, code, err)
    end
    os.remove(path)
  end)
end)

describe("schema: a top-level \"$schema\" key (README: for editors)", function()
  local job = '{"$schema":"x.json","kind":"PyTorchJob","worker":{"replicas":1}}'

  it("the schema takes it beside kind or jobs, a string, at the top only", function()
    local all, one = kfjob.schema(), kfjob.schema("PyTorchJob")
    local node = kfjob.read_yaml(one)["$defs"].PyTorchJob.properties["$schema"]
    assert.are.equal("string", node.type)
    local v = jsonschema_valid(all, job)
    if v == nil then return end
    assert.is_true(v)
    assert.is_true(jsonschema_valid(one, job))
    assert.is_true(jsonschema_valid(all, '{"$schema":"x.json","jobs":{"a":{"kind":"PyTorchJob"}}}'))
    assert.is_false(jsonschema_valid(all, '{"$schema":3,"kind":"PyTorchJob"}'))
    -- the reader refuses it in a list item or a jobs entry: so does the schema
    assert.is_false(jsonschema_valid(all, "[" .. job .. "]"))
    assert.is_false(jsonschema_valid(all, '{"jobs":{"a":' .. job .. '}}'))
  end)

  it("the reader takes a string and refuses another value, naming $schema", function()
    if not util.cli_ok then return end
    local dir = util.tmpdir()
    local code, _, err = util.kfjob("render", util.write(dir .. "/a.json", job))
    assert.are.equal(0, code, err)
    code, _, err = util.kfjob("check", util.write(dir .. "/b.json", '{"$schema":3,"kind":"PyTorchJob"}'))
    assert.are.equal(1, code)
    assert.matches("b.json:1: $schema: expected a string", err, 1, true)
  end)
end)

describe("CLI flag values: the flag named, exit 2 (SPEC: usage errors)", function()
  if not util.cli_ok then return end
  local dir = util.tmpdir()
  local cfg = util.write(dir .. "/one.lua", 'local kfjob = require "kfjob"\n'
    .. 'return kfjob.PyTorchJob{ master = { image = "img:1" }, worker = { replicas = 2, image = "img:1" } }\n')
  local ts = { "render", cfg, "-f", "taskspec-json", "--project", "p", "--domain", "d", "--version", "v" }
  local function with(base, ...)
    local t = {}
    for _, a in ipairs(base) do t[#t + 1] = a end
    for _, a in ipairs({ ... }) do t[#t + 1] = a end
    return (table.unpack or unpack)(t)
  end

  it("--timeout: not whole seconds nor a duration", function()
    for _, bad in ipairs({ "1x", "h", "1h1h", "1m1h", "315576000001", "87660001h", "-5" }) do
      local code, out, err = util.kfjob(with(ts, "--timeout", bad))
      assert.are.equal(2, code, bad .. ": " .. err)
      assert.are.equal("", out)
      assert.matches("kfjob: --timeout expects whole seconds", err, 1, true)
      assert.not_matches("opts.", err, 1, true)
    end
    -- google.protobuf.Duration's seconds: 0 to 315576000000 (10000 years)
    for _, good in ipairs({ "0", "5400", "1h30m", "90m", "1s", "315576000000", "87660000h" }) do
      local code, _, err = util.kfjob(with(ts, "--timeout", good))
      assert.are.equal(0, code, good .. ": " .. err)
    end
    local _, out = util.kfjob(with(ts, "--timeout", "1h30m"))
    assert.matches('"timeout":"5400s"', out, 1, true)
  end)

  it("--name and --namespace that are not DNS labels where they name a resource", function()
    local cases = {
      { { "render", cfg, "-f", "manifest", "--name", "Bad_Name" }, "--name: 'Bad_Name' is not a DNS-1035 label" },
      { { "check", cfg, "--target", "trainer-2.3", "--name", "Bad_Name" }, "--name: 'Bad_Name' is not a DNS-1035 label" },
      { { "env", cfg, "--name", "1abc" }, "--name: '1abc' is not a DNS-1035 label" },
      { { "render", cfg, "-f", "manifest", "--namespace", "Bad_NS" }, "--namespace: 'Bad_NS' is not a DNS-1123 label" },
      { { "env", cfg, "--namespace", "Bad_NS" }, "--namespace: 'Bad_NS' is not a DNS-1123 label" },
      { { "render", cfg, "-f", "manifest", "--name", "n" .. ("a"):rep(63) }, "--name: 'n" .. ("a"):rep(63) .. "' is not a DNS-1035 label (at most 63" },
    }
    for _, c in ipairs(cases) do
      local code, out, err = util.kfjob((table.unpack or unpack)(c[1]))
      assert.are.equal(2, code, table.concat(c[1], " ") .. ": " .. err)
      assert.are.equal("", out)
      assert.matches("kfjob: " .. c[2], err, 1, true)
      assert.not_matches("opts.", err, 1, true)
    end
  end)

  it("a Flyte task's name is not a resource name: --name Bad_Name renders, check warns", function()
    local code, out, err = util.kfjob("render", cfg, "--name", "Bad_Name")
    assert.are.equal(0, code, err)
    assert.matches('"name":"Bad_Name"', out, 1, true)
    code = util.kfjob("check", cfg, "--name", "Bad_Name", "--target", "flyte")
    assert.are.equal(0, code)
    code, out, err = util.kfjob("render", cfg, "-f", "manifest", "--name", "ok-name", "--namespace", "team-a")
    assert.are.equal(0, code, err)
    assert.matches("namespace: team-a", out, 1, true)
  end)
end)

describe("lint: a warning a rule covers carries its id and source (docs/RULES.md)", function()
  local function only(ws, path)
    local out = {}
    for _, w in ipairs(ws) do if w.path == path then out[#out + 1] = w end end
    assert.are.equal(1, #out, path)
    return out[1]
  end

  it("R11 slots on Flyte, R12 an accelerator without a GPU limit", function()
    local w = only(kfjob.MPIJob{ worker = { replicas = 2, image = "i" }, launcher = { image = "i" },
                                 slots = 2 }:lint{ target = "flyte" }, "slots")
    assert.are.equal("R11", w.rule)
    assert.are.equal("flyteplugins mpi.go BuildResource (v1 slots never read)", w.source)
    w = only(kfjob.PyTorchJob{ master = { image = "i" }, worker = { replicas = 1, image = "i" },
                               accelerator = { device = "nvidia-tesla-a100" } }:lint{ target = "operator" },
             "accelerator")
    assert.are.equal("R12", w.rule)
    assert.is_string(w.source)
  end)

  it("R14 and R15 on the name where the target has them; none on Flyte (n.a.)", function()
    local job = kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "i" }, shared_memory = true }
    local n63 = "n63-" .. ("a"):rep(59)
    local w = only(job:lint{ target = "trainer-2.3", name = n63 }, "opts.name")
    assert.are.equal("R15", w.rule)
    assert.matches("JobSet", w.source, 1, true)
    w = only(job:lint{ target = "operator", name = n63 }, "opts.name")
    assert.are.equal("R15", w.rule)
    w = only(job:lint{ target = "operator", name = "Bad" }, "opts.name")
    assert.are.equal("R14", w.rule)
    w = only(job:lint{ target = "flyte", name = "Bad" }, "opts.name")
    assert.is_nil(w.rule)
  end)

  it("check's text names the rule", function()
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/m.lua", 'local kfjob = require "kfjob"\n'
      .. 'return kfjob.MPIJob{ worker = { replicas = 2, image = "i" }, launcher = { image = "i" }, slots = 2 }\n')
    local code, out = util.kfjob("check", path, "--target", "flyte")
    assert.are.equal(0, code)
    assert.matches("warning: slots: .*%(target flyte; rule R11: flyteplugins mpi.go", out)
    code, out = util.kfjob("check", path, "--target", "flyte", "-f", "json")
    assert.are.equal(0, code)
    assert.matches("rule R11", out, 1, true)
  end)
end)

describe("R15 on Trainer names the pods JobSet makes: <name>-node-0-<i>", function()
  local n63 = "n63-" .. ("a"):rep(59)

  it("lint and check give the last node's pod, not the operator's <name>-master-0", function()
    -- numNodes = 1 (the master) + 2 workers (FACTS R1): pods node-0-0 .. node-0-2
    local job = kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "i" }, shared_memory = true }
    local ws = job:lint{ target = "trainer-2.3", name = n63 }
    assert.are.equal(1, #ws)
    assert.are.equal("pod name '" .. n63 .. "-node-0-2' has 72 characters: more than the 63 Kubernetes allows",
                     ws[1].message)
    -- the operator's pods are <name>-<type>-<i> (master-0 and worker-1: 72 each)
    ws = job:lint{ target = "operator", name = n63 }
    assert.matches("pod name '" .. n63 .. "-master-0' has 72 characters", ws[1].message, 1, true)
    -- an Elastic job: numNodes is nnodes
    ws = kfjob.Elastic{ nnodes = 12, container = { image = "i" }, shared_memory = true }
      :lint{ target = "trainer-2.3", name = ("b"):rep(54) }
    assert.are.equal("pod name '" .. ("b"):rep(54) .. "-node-0-11' has 64 characters: more than the 63 "
                     .. "Kubernetes allows", ws[1].message)
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/w.lua", 'local kfjob = require "kfjob"\n'
      .. 'return kfjob.PyTorchJob{ worker = { replicas = 2 }, container = { image = "i" }, shared_memory = true }\n')
    local code, out = util.kfjob("check", path, "--target", "trainer-2.3", "--name", n63)
    assert.are.equal(0, code)
    assert.matches("pod name '" .. n63 .. "-node-0-2' has 72 characters", out, 1, true)
    assert.not_matches("-master-0", out, 1, true)
  end)
end)

describe("a workers-only PyTorchJob (master.replicas = 0, R53)", function()
  it("gets no master.image warning: no Master group is written", function()
    local job = kfjob.PyTorchJob{ master = { replicas = 0 }, worker = { replicas = 2, image = "img:1" },
                                  shared_memory = true }
    for _, t in ipairs({ "operator", "flyte" }) do
      for _, w in ipairs(job:lint{ target = t }) do
        assert.are_not.equal("master.image", w.path, t .. ": " .. w.message)
      end
    end
    -- with a master, the warning stays
    local paths = {}
    for _, w in ipairs(kfjob.PyTorchJob{ worker = { replicas = 2, image = "img:1" }, shared_memory = true }
                         :lint{ target = "operator" }) do paths[#paths + 1] = w.path end
    assert.are.same({ "master.image" }, paths)
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/wo.lua", 'local kfjob = require "kfjob"\n'
      .. 'return kfjob.PyTorchJob{ master = { replicas = 0 }, worker = { replicas = 2, image = "img:1" }, '
      .. 'shared_memory = true }\n')
    local code, out = util.kfjob("check", path, "--target", "operator")
    assert.are.equal(0, code)
    assert.not_matches("master.image", out, 1, true)
  end)
end)

describe("an nnodes bound out of int32 range", function()
  it("is shown as written, not clamped", function()
    local function err_of(v)
      local ok, e = pcall(kfjob.Elastic, { nnodes = v })
      assert.is_false(ok)
      return e
    end
    assert.are.equal("kfjob.Elastic: nnodes: integer out of int32 range (99999999999999999999)",
                     err_of("1:99999999999999999999"))
    assert.are.equal("kfjob.Elastic: nnodes: integer out of int32 range (99999999999999999999)",
                     err_of("99999999999999999999:2"))
    assert.are.equal("kfjob.Elastic: nnodes: integer out of int32 range (2147483648)", err_of("1:2147483648"))
    assert.are.equal("kfjob.Elastic: nnodes: integer out of int32 range (" .. ("9"):rep(40) .. "...)",
                     err_of("2:" .. ("9"):rep(60)))
  end)
end)

describe("explain Elastic.nproc_per_node: WHERE IT GOES agrees with ON TARGET", function()
  it("the operator's spec.nprocPerNode, Flyte's deprecated elasticPolicy.nProcPerNode", function()
    -- training-operator v1.9 reads spec.nprocPerNode and deprecates
    -- elasticPolicy.nProcPerNode, which flyteplugins pytorch.go still writes
    local explain = require "kfjob.explain"
    local text = explain("Elastic.nproc_per_node")
    assert.matches("\n  manifest %(operator%): spec%.nprocPerNode\n", text)
    assert.matches("\n  manifest %(flyte, flyte2%): spec%.elasticPolicy%.nProcPerNode\n", text)
    assert.not_matches("manifest %(operator, flyte", text)
    assert.matches("ON TARGET operator [^\n]*\n  manifest: spec%.nprocPerNode\n", text)
    -- the other elastic rows keep one line
    assert.matches("\n  manifest %(operator, flyte, flyte2%): spec%.elasticPolicy%.maxRestarts\n",
                   explain("Elastic.max_restarts"))
  end)
end)

describe("doc transcripts are the CLI's output", function()
  if not util.cli_ok then return end
  -- the lines after `$ CMD` in a doc, up to the next `$ ` line or fence,
  -- with the block's indentation taken off
  local function transcript(doc, cmd)
    local text = assert(util.slurp(doc))
    local at = assert(text:find("\n( *)%$ " .. cmd:gsub("%p", "%%%0") .. "\n"), cmd)
    local indent = text:match("\n( *)%$ ", at)
    local out = {}
    for line in text:sub(at + 1):gmatch("([^\n]*)\n") do
      if #out > 0 or line:find("$ ", 1, true) then
        local l = line:sub(#indent + 1)
        if #out > 0 and (l:find("^%$ ") or l:find("^```")) then break end
        out[#out + 1] = l
      end
    end
    table.remove(out, 1)
    return table.concat(out, "\n") .. "\n"
  end
  local dir = util.tmpdir()
  util.write(dir .. "/train.lua", 'local kfjob = require "kfjob"\nreturn kfjob.PyTorchJob{ worker = { replicas = 3 } }\n')
  local function run(...)
    local code, out, err = util.kfjob(...)
    assert.are.equal(0, code, err)
    return out
  end

  it("README: kfjob explain Elastic.nnodes --target trainer-2.3", function()
    assert.are.equal(run("explain", "Elastic.nnodes", "--target", "trainer-2.3"),
                     transcript("README.md", "kfjob explain Elastic.nnodes --target trainer-2.3"))
  end)

  it("docs/TARGETS.md: kfjob env train.lua --name bert (and --target trainer-2.3 --pod node-0-1)", function()
    local shown = transcript("docs/TARGETS.md", "kfjob env train.lua --name bert")
    local real = run("env", dir .. "/train.lua", "--name", "bert")
    -- the doc elides repeated lines with `...`: its first pod whole
    assert.are.equal(real:match("^(.-\n)# bert worker%-0\n"), shown:match("^(.-\n)# bert worker%-0\n"))
    assert.are.equal(run("env", dir .. "/train.lua", "--name", "bert", "--target", "trainer-2.3", "--pod", "node-0-1"),
                     transcript("docs/TARGETS.md", "kfjob env train.lua --name bert --target trainer-2.3 --pod node-0-1"))
  end)
end)

describe("a signed quantity (resource.ParseQuantity takes a leading sign)", function()
  it("'+1' is taken and kept as written; sums and comparisons read it as 1", function()
    local job = kfjob.PyTorchJob{ master = { requests = { cpu = "+500m" } },
                                  worker = { replicas = 2, requests = { cpu = "+1", mem = "+2Gi" },
                                             limits = { cpu = "+2", gpu = "+1" } }, shared_memory = true }
    local m = job:manifest{ name = "a", image = "i" }.spec.pytorchReplicaSpecs
    local wr = m.Worker.template.spec.containers[1].resources
    assert.are.same({ cpu = "+2", ["nvidia.com/gpu"] = "+1" }, wr.limits)
    assert.are.same({ cpu = "+1", memory = "+2Gi", ["nvidia.com/gpu"] = "+1" }, wr.requests)
    assert.are.equal("+500m", m.Master.template.spec.containers[1].resources.requests.cpu)
    assert.matches('"value":"+1"', job:to_json(), 1, true)
    -- "+2" > "1": the request above the limit is seen
    local ws = kfjob.PyTorchJob{ worker = { replicas = 1, requests = { cpu = "+2" }, limits = { cpu = "1" } },
                                 shared_memory = true }:lint()
    assert.are.equal("worker.requests.cpu", ws[1].path)
    -- "+1" equals 1: no master/worker difference on Trainer
    assert.is_true(kfjob.PyTorchJob{ master = { requests = { cpu = "1" } }, worker = { replicas = 1,
      requests = { cpu = "+1" } }, shared_memory = true }:check{ target = "trainer-2.3", name = "a" })
    -- the schema's quantity pattern takes it too
    assert.matches('%^%[%+%]%?', kfjob.schema("PyTorchJob"))
    if not util.cli_ok then return end
    local path = util.write(util.tmpdir() .. "/q.lua", 'local kfjob = require "kfjob"\n'
      .. 'return kfjob.PyTorchJob{ master = { requests = { cpu = "+500m" } }, worker = { replicas = 2, '
      .. 'requests = { cpu = "+1" }, limits = { gpu = "+1" } }, shared_memory = true }\n')
    local code, out = util.kfjob("check", path, "--target", "operator", "--image", "i")
    assert.are.equal(0, code)
    -- 500m + 2 x 1 = 2500m CPU requested, 2 GPUs
    assert.matches("q%s+PyTorchJob%s+3 %b()[^\n]-2%s+2500m", out)
  end)

  it("'-1' is refused as negative, by name; '+-1' and '+' are malformed", function()
    local function err_of(v)
      local ok, e = pcall(kfjob.PyTorchJob, { worker = { replicas = 1, requests = { cpu = v } } })
      assert.is_false(ok)
      return e
    end
    assert.are.equal("kfjob.PyTorchJob: worker.requests.cpu: '-1' is negative: Kubernetes refuses negative "
                     .. "requests and limits (pod validation: must be greater than or equal to 0)", err_of("-1"))
    assert.matches("invalid quantity '+-1'", err_of("+-1"), 1, true)
    assert.matches("invalid quantity '+'", err_of("+"), 1, true)
  end)

  it("a manifest's '+1' reads back; its '-1' is refused naming the path", function()
    local function doc(q)
      return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: a}\nspec:\n  pytorchReplicaSpecs:\n"
        .. "    Master:\n      replicas: 1\n      template:\n        spec:\n          containers:\n"
        .. "          - name: pytorch\n            image: i\n            resources: {requests: {cpu: '" .. q .. "'}}\n"
    end
    local job = kfjob.from_manifest(doc("+1"))
    assert.are.equal("+1", job:spec().master.requests.cpu)
    local none, e = kfjob.from_manifest(doc("-1"))
    assert.is_nil(none)
    assert.matches("resources.requests.cpu: '-1' is negative", e, 1, true)
  end)
end)

describe("a placeholder in a field axis's value", function()
  it("is rendered per variant, as the base's and the name's are", function()
    local got = {}
    for name, job, params in kfjob.template.variants(kfjob.PyTorchJob{ worker = { replicas = 1 } },
        { tag = { "1.0", "2.0" }, ["container.image"] = { "ghcr.io/acme/bert:${tag}" } }, { name = "b-${tag}" }) do
      got[#got + 1] = name .. " " .. job:spec().container.image
      assert.are.equal("ghcr.io/acme/bert:${tag}", params["container.image"])   -- as given
    end
    assert.are.same({ "b-1-0 ghcr.io/acme/bert:1.0", "b-2-0 ghcr.io/acme/bert:2.0" }, got)
    -- a table base, opts.vars, a default
    for _, job in kfjob.template.variants({ worker = { replicas = 1 } },
        { ["container.image"] = { "r/${repo}:${tag:-latest}" }, ["worker.replicas"] = { 2 } },
        { kind = "PyTorchJob", name = "x", vars = { repo = "bert" } }) do
      assert.are.equal("r/bert:latest", job:spec().container.image)
    end
  end)

  it("a missing variable is an error naming the axis", function()
    local ok, e = pcall(function()
      for _ in kfjob.template.variants(kfjob.PyTorchJob{ worker = { replicas = 1 } },
          { ["container.image"] = { "ghcr.io/acme/bert:${nope}" } }, { name = "b" }) do end
    end)
    assert.is_false(ok)
    assert.matches("matrix: axis 'container.image': missing variable 'nope'", e, 1, true)
  end)
end)
