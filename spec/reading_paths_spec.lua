-- Reading manifests: what their target's rules say about them is named by
-- the manifest's own path (messages say the fix in the user's words, SPEC
-- §17), in kfjob.from_manifest's info.warnings and errors as in kfjob
-- convert's stderr; a job read from a manifest runs as a Flyte 2 clustered
-- task from Lua as from the CLI; and the decoders take text only (the
-- README's error policy: wrong Lua argument types raise).  Expected values
-- from Kubernetes (kubelet makeEnvironmentVariables: an undefined $(VAR)
-- stays as written; list items counted from 0), mpi-operator v0.8
-- validation.go validateReplicaSpec (Never and OnFailure only) and flyte
-- clustered/build.go (one replicated job of the task's one container).
local util = require "util"
local kfjob = require "kfjob"

-- $(FOO) and $(BAR): set by nothing on the pods (R55)
local PT = [[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: refs
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: registry.example/train:1
            args: [train.py, "--data=$(FOO)"]
            env:
            - name: A
              value: "1"
            - name: X
              value: "$(BAR)"
]]

local W0 = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]"

local function by_path(list, rule)
  local out = {}
  for _, w in ipairs(list) do
    if w.rule == rule then out[w.path] = w.message end
  end
  return out
end

describe("R55 of a manifest read names the manifest's path", function()
  it("from_manifest: info.warnings, entries as job:lint's ({path=, message=, rule=, source=})", function()
    local job, info = assert(kfjob.from_manifest(PT))
    assert.are.equal("operator", info.target)
    local ws = by_path(info.warnings, "R55")
    assert.matches("$(FOO) does not expand", ws[W0 .. ".args[1]"] or "", 1, true)
    assert.matches("$(BAR) does not expand", ws[W0 .. ".env[1].value"] or "", 1, true)
    for _, w in ipairs(info.warnings) do
      assert.is_string(w.message)
      assert.is_string(w.source)
    end
    -- job:lint keeps kfjob's own paths (the job's fields)
    local lint = by_path(job:lint{ target = "operator" }, "R55")
    assert.is_not_nil(lint["container.args"])
    assert.is_not_nil(lint["container.env.X"])
  end)

  it("a manifest without warnings: an empty info.warnings", function()
    local clean = PT:gsub('"%-%-data=%$%(FOO%)"', '"--data=x"'):gsub('"%$%(BAR%)"', '"y"')
    local _, info = assert(kfjob.from_manifest(clean))
    assert.are.same({}, info.warnings)
  end)

  it("from_manifests: each document's info.warnings", function()
    local list = assert(kfjob.from_manifests(PT .. "---\n" .. PT:gsub("name: refs", "name: refs2")))
    assert.are.equal(2, #list)
    for _, d in ipairs(list) do
      assert.is_not_nil(by_path(d.info.warnings, "R55")[W0 .. ".args[1]"])
    end
  end)

  it("kfjob convert prints them at the manifest's path", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    for _, args in ipairs({ {}, { "--to", "trainer-2.3", "--lossy" } }) do
      local _, _, err = util.conv(PT, (table.unpack or unpack)(args))
      assert.matches(W0 .. ".args[1]: $(FOO) does not expand", err, 1, true)
      assert.matches(W0 .. ".env[1].value: $(BAR) does not expand", err, 1, true)
      assert.is_nil(err:find("container.args:", 1, true), err)
    end
  end)
end)

local MPI_ALWAYS = [[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      restartPolicy: Always
      template:
        spec:
          containers:
          - name: mpi-launcher
            image: mpioperator/mpi-pi:openmpi
            command: [mpirun, -n, "2", /home/mpiuser/pi]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: mpi-worker
            image: mpioperator/mpi-pi:openmpi
]]

describe("a v2beta1 launcher's restartPolicy Always (mpi-operator validation.go: Never, OnFailure)", function()
  it("from_manifest refuses it at the manifest's path, with its rule", function()
    local job, msg = kfjob.from_manifest(MPI_ALWAYS)
    assert.is_nil(job)
    assert.matches("^kfjob%.from_manifest: spec%.mpiReplicaSpecs%.Launcher%.restartPolicy: ", msg)
    assert.matches("accepts only Never and OnFailure", msg, 1, true)
    assert.matches("R13", msg, 1, true)
    assert.is_nil(msg:find("launcher.restart_policy", 1, true), msg)
  end)

  it("with lossy it is left out and listed in info.unmapped at that path", function()
    local job, info = assert(kfjob.from_manifest(MPI_ALWAYS, { lossy = true }))
    assert.are.equal("never", job.launcher.restart_policy)
    assert.are.equal(1, #info.unmapped)
    assert.are.equal("spec.mpiReplicaSpecs.Launcher.restartPolicy", info.unmapped[1].path)
    assert.are.equal("Always", info.unmapped[1].value)
    assert.matches("R13", info.unmapped[1].reason, 1, true)
    assert.is_truthy(job:manifest{ target = "mpi-operator", name = "pi" })
  end)

  it("from_manifests names the document", function()
    local list, msg = kfjob.from_manifests(MPI_ALWAYS)
    assert.is_nil(list)
    assert.matches("kfjob.from_manifests: document 1 (line 1): spec.mpiReplicaSpecs.Launcher.restartPolicy: ",
                   msg, 1, true)
  end)
end)

-- flyte clustered/build.go runs one replicated job of the task's pod: a
-- PyTorchJob whose Master and Workers run the same image and resources is
-- that one container (kfjob convert --to flyte2-clustered reads it so).
describe("a PyTorchJob read from a manifest, as a Flyte 2 clustered task from Lua", function()
  local function pod(image)
    return "      template:\n        spec:\n          containers:\n          - name: pytorch\n" ..
           "            image: " .. image .. "\n            resources: {limits: {nvidia.com/gpu: 1}}\n"
  end
  local function pt(mi, wi)
    return "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec:\n" ..
      "  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      restartPolicy: Never\n" ..
      pod(mi) .. "    Worker:\n      replicas: 2\n      restartPolicy: Never\n" .. pod(wi)
  end
  local T = { target = "flyte2-clustered" }

  it("custom, task_template and check take the groups' one image and resources", function()
    local job = assert(kfjob.from_manifest(pt("img:2", "img:2")))
    assert.are.same({ replicas = 3, nprocPerNode = 1, runtime = { torchrun = {} } }, job:custom(T))
    local tt = job:task_template{ target = "flyte2-clustered", format = "json" }
    assert.matches('"type":"clustered-task"', tt, 1, true)
    assert.matches('"image":"img:2"', tt, 1, true)
    assert.matches('{"name":"GPU","value":"1"}', tt, 1, true)
    assert.is_true((job:check(T)))
    -- the job itself keeps the groups' images (Law 1 for its own target)
    assert.are.equal("img:2", job.worker.image)
  end)

  it("the same bytes as kfjob convert --to flyte2-clustered -f template", function()
    if not util.cli_ok then return pending(util.CLI_ONLY) end
    local job = assert(kfjob.from_manifest(pt("img:2", "img:2")))
    local code, out, err = util.conv(pt("img:2", "img:2"), "--to", "flyte2-clustered", "-f", "template-json")
    assert.are.equal(0, code, err)
    local want = job:task_template{ target = "flyte2-clustered", format = "json" }
    assert.matches(want, out, 1, true)
  end)

  it("different images stay refused (R48)", function()
    local job = assert(kfjob.from_manifest(pt("a:1", "b:1")))
    local ok, problems = job:check(T)
    assert.is_nil(ok)
    local rules = {}
    for _, p in ipairs(problems) do rules[p.rule] = true end
    assert.is_true(rules.R48)
    assert.has_error(function() job:custom(T) end)
  end)
end)

describe("functions taking text refuse other types (README: wrong argument types raise)", function()
  local cases = {
    { "decode", 2, function() return kfjob.decode("pytorch", 123) end },
    { "decode", 1, function() return kfjob.decode(123, "") end },
    { "from_json", 1, function() return kfjob.from_json(1, "{}") end },
    { "decode_task_template", 1, function() return kfjob.decode_task_template(123) end },
    { "decode_task_spec", 1, function() return kfjob.decode_task_spec(123) end },
    { "from_manifests", 1, function() return kfjob.from_manifests(123) end },
    { "hash64", 1, function() return kfjob.hash64(123) end },
    { "suggest", 1, function() return kfjob.suggest(12, { "12" }) end },
    { "fields", 1, function() return kfjob.fields(1) end },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. " argument #" .. c[2], function()
      local err = util.error_of(c[3])
      -- LuaJIT (and a call Lua cannot name, as a tail call under a hook)
      -- names the function '?'
      local tail = "' (string expected, got number)"
      assert.is_truthy(err:find("bad argument #" .. c[2] .. " to '" .. c[1] .. tail, 1, true) or
                       err:find("bad argument #" .. c[2] .. " to '?" .. tail, 1, true), err)
    end)
  end

  it("from_manifest: text or a table", function()
    local err = util.error_of(function() return kfjob.from_manifest(123) end)
    assert.is_truthy(err:find("bad argument #1 to 'from_manifest'", 1, true) or
                     err:find("bad argument #1 to '?'", 1, true), err)
    assert.matches("got number", err, 1, true)
  end)
end)
