-- Faults a regression tester found (fx2_small), one describe per fault; the
-- expected values come from the documented semantics and Kubernetes /
-- operator behaviour, never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

describe("a matrix variable used only in a field axis's value", function()
  local T = kfjob.template
  local base = { worker = { replicas = 1 }, container = { image = "i" } }

  it("counts as used (no 'neither a field nor a variable' error)", function()
    local got = {}
    for name, job in T.variants(base, { ["container.image"] = { "r:${tag}" }, tag = { "v1", "v2" } },
                                { kind = "PyTorchJob", name = "j-${worker.replicas}", unique = false }) do
      got[#got + 1] = name .. " " .. job:spec().container.image
    end
    assert.are.same({ "j-1 r:v1", "j-1 r:v2" }, got)
    -- an include entry's field value too
    got = {}
    for _, job in T.variants(base, { tag = { "v1" }, include = { { tag = "v1", ["container.image"] = "q:${tag}" } } },
                             { kind = "PyTorchJob", name = "k" }) do
      got[#got + 1] = job:spec().container.image
    end
    assert.are.same({ "q:v1" }, got)
  end)

  it("a variable used nowhere is still refused", function()
    local ok, e = pcall(T.variants, base, { ["container.image"] = { "r:${tag}" }, tag = { "v1" }, tga = { "x" } },
                        { kind = "PyTorchJob", name = "j" })
    assert.is_false(ok)
    assert.matches("matrix key 'tga' is neither a field", e, 1, true)
  end)

  it("the name template reads the axis's rendered value (docs/API.md: the variant's resolved fields)", function()
    local got = {}
    for name, job in T.variants(base, { ["container.image"] = { "r:${tag}" }, tag = { "v1" } },
                                { kind = "PyTorchJob", name = "j-${container.image}-${tag}" }) do
      got[#got + 1] = name .. " " .. job:spec().container.image
    end
    assert.are.same({ "j-r-v1-v1 r:v1" }, got)
    -- a job base too
    got = {}
    for name in T.variants(kfjob.PyTorchJob(base), { ["container.image"] = { "r:${tag}" }, tag = { "v2" } },
                           { name = "j-${container.image}" }) do
      got[#got + 1] = name
    end
    assert.are.same({ "j-r-v2" }, got)
  end)
end)

-- resource.ParseQuantity takes a leading '+'; the torch plugin's process
-- count a node is the CPU quantity's Value() (rounded up, at least 1).
describe("a TrainJob's '+' CPU quantity migrated to the operator", function()
  local TJ = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    image: img
    command: [torchrun, --no-python, python, train.py]
    numNodes: 2
    resourcesPerNode:
      limits: {cpu: "CPU"}
]]
  local function nproc(cpu)
    local code, out, err = util.conv((TJ:gsub("CPU", cpu, 1)), "--to", "operator", "-f", "manifest")
    assert.are.equal(0, code, err)
    local d = util.doc1(out)
    assert.are.equal("PyTorchJob", d.kind)
    return d.spec.nprocPerNode
  end
  for _, c in ipairs({ { "+3", "3" }, { "+3000m", "3" }, { "+2500m", "3" }, { "+2.1", "3" } }) do
    it(c[1] .. " counts as " .. c[2], function()
      if not util.cli_ok then return pending(util.CLI_ONLY) end
      assert.are.equal(c[2], nproc(c[1]))
    end)
  end
  -- one process a node: as the same value without the sign reads
  for _, c in ipairs({ { "+1", "1" }, { "+0.5", "500m" } }) do
    it(c[1] .. " counts as " .. c[2] .. " does", function()
      if not util.cli_ok then return pending(util.CLI_ONLY) end
      assert.are.equal(nproc(c[2]), nproc(c[1]))
    end)
  end
end)

-- kubelet expands each $(NAME) of a value on its own (expand.go): every
-- reference that stays as written is R55's (docs/RULES.md: every reference).
describe("R55 reports every reference of a string", function()
  local function r55(job, target)
    local got = {}
    for _, w in ipairs(job:lint{ target = target }) do
      if w.rule == "R55" then
        got[#got + 1] = w.path .. " " .. w.message:match("^%$%(([%w_]+)%) does not expand")
      end
    end
    table.sort(got)
    return got
  end

  it("undefined ones in an env value and in a command (trainer-2.3)", function()
    local j = kfjob.PyTorchJob{ worker = { replicas = 1 }, container = { image = "i",
      command = { "sh", "-c", "echo $(MASTER_ADDR) $(FOO1)" }, env = { X = "$(FOO) $(BAR2)" } } }
    assert.are.same({ "container.command FOO1", "container.command MASTER_ADDR",
                      "container.env.X BAR2", "container.env.X FOO" }, r55(j, "trainer-2.3"))
  end)

  it("a late one and an undefined one in one value, a repeated one once (operator)", function()
    local j = kfjob.PyTorchJob{ master = { replicas = 1 }, worker = { replicas = 1 }, container = { image = "i",
      args = { "$(NOPE) $(NOPE) $(RANK)" }, env = { X = "$(MASTER_ADDR) $(FOO) $$(BAR) $(FOO)" } } }
    assert.are.same({ "container.args NOPE", "container.env.X FOO", "container.env.X MASTER_ADDR" },
                    r55(j, "operator"))
  end)
end)

-- A manifest's metadata.name must be a DNS-1035 label (the operators'
-- webhooks, validation.IsDNS1035Label): convert's --name is checked at the
-- flag where it names that resource, as render's, env's and check's are.
describe("convert --name that is not a DNS-1035 label where it names a resource", function()
  local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pt
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: img
]]
  it("is a usage error naming the flag (exit 2) for -f manifest, manifest-json and the default", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, args in ipairs({ { "-f", "manifest" }, { "-f", "manifest-json" }, {}, { "--to", "flyte", "-f", "manifest" } }) do
      local a = { (table.unpack or unpack)(args) }
      a[#a + 1] = "--name"; a[#a + 1] = "Bad_N"
      local code, out, err = util.conv(PT, (table.unpack or unpack)(a))
      assert.are.equal(2, code, table.concat(a, " ") .. ": " .. err)
      assert.are.equal("", out)
      assert.matches("--name: 'Bad_N' is not a DNS-1035 label", err, 1, true)
    end
  end)
  it("is not checked where the name is not a resource's (-f yaml: a Flyte task)", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local code, out, err = util.conv(PT, "-f", "yaml", "--name", "Bad_N")
    assert.are.equal(0, code, err)
    assert.matches('name: "Bad_N"', out, 1, true)
    code, out, err = util.conv(PT, "-f", "manifest", "--name", "good-n")
    assert.are.equal(0, code, err)
    assert.matches("name: good-n", out, 1, true)
  end)
end)
