-- Hardening, round 5 (issue 44): numbers and defaults read as the API
-- server and kubectl read them, and valid input read (or bad input
-- explained) as what it is.  Expected values come from Kubernetes and the
-- operators, cited per case, never from kfjob's own output.
local kfjob = require "kfjob"
local util = require "util"

-- A PyTorchJob manifest whose Worker replica spec is `worker` (text put
-- under "    Worker:\n"), with one Master.
local function pytorch(worker, extra)
  return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: t
spec:
%s  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: img
    Worker:
%s      template:
        spec:
          containers:
          - name: pytorch
            image: img
]]):format(extra or "", worker)
end

-- An elastic PyTorchJob manifest: a Worker spec (`worker`) alone.
local function elastic(worker, policy)
  return ([[
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: t}
spec:
  elasticPolicy: %s
  pytorchReplicaSpecs:
    Worker:
%s      template:
        spec:
          containers: [{name: pytorch, image: img}]
]]):format(policy, worker)
end

local function read(text, opts)
  return kfjob.from_manifest(text, opts)
end

describe("round 5: Kubernetes defaults and numbers as the API server reads them", function()
  it("a replica spec without replicas is the operator's default 1 (training-operator setDefaultReplicas)", function()
    local job, info = read(pytorch(""))
    assert.is_truthy(job, info)
    assert.equal(1, job:spec().worker.replicas)
    local mpi = read([[
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: t}
spec:
  tfReplicaSpecs:
    Worker:
      template:
        spec:
          containers: [{name: tensorflow, image: img}]
]])
    assert.equal(1, mpi:spec().worker.replicas)
  end)

  it("an mpi-operator Worker without replicas (defaulted to 0, refused by its validation) is refused with the path", function()
    local job, msg = read([[
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: t}
spec:
  mpiReplicaSpecs:
    Launcher:
      template: {spec: {containers: [{name: l, image: img, command: [mpirun, python, a.py]}]}}
    Worker:
      template: {spec: {containers: [{name: w, image: img}]}}
]])
    assert.is_nil(job)
    assert.matches("spec.mpiReplicaSpecs.Worker.replicas: missing", msg, 1, true)
  end)

  it("an elastic Worker without replicas is 1 (nnodes 1 without min and max)", function()
    local job, info = read(elastic("", "{rdzvBackend: c10d}"))
    assert.is_truthy(job, info)
    assert.equal(1, job:spec().nnodes)
  end)

  it("integral floats are integers everywhere an integer is read (JSON's 3.0 is 3 to the API server)", function()
    local job = assert(read(pytorch("      replicas: 3.0\n")))
    assert.equal(3, job:spec().worker.replicas)
    job = assert(read(elastic("      replicas: 4\n", "{minReplicas: 2.0, maxReplicas: 4.0, rdzvBackend: c10d}")))
    assert.equal("2:4", job:spec().nnodes)
    job = assert(read(pytorch("      replicas: 1\n", "  runPolicy: {backoffLimit: 2.0, ttlSecondsAfterFinished: 6e1}\n")))
    assert.equal(2, job:spec().run_policy.backoff_limit)
    assert.equal(60, job:spec().run_policy.ttl_seconds_after_finished)
  end)

  it("a non-integral float in an integer field is refused with the manifest path", function()
    local job, msg = read(pytorch("      replicas: 3.5\n"))
    assert.is_nil(job)
    assert.matches("spec.pytorchReplicaSpecs.Worker.replicas: expected an integer", msg, 1, true)
    job, msg = read(elastic("      replicas: 4\n", "{minReplicas: 2.5, maxReplicas: 4, rdzvBackend: c10d}"))
    assert.is_nil(job)
    assert.matches("spec.elasticPolicy.minReplicas: expected an integer", msg, 1, true)
    job, msg = read(elastic("      replicas: two\n", "{rdzvBackend: c10d}"))
    assert.is_nil(job)
    assert.matches("spec.pytorchReplicaSpecs.Worker.replicas: expected an integer", msg, 1, true)
  end)

  it("a TrainJob's numNodes below 1 is refused with its path, never read as 1", function()
    local tj = [[
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: t}
spec:
  runtimeRef: {apiGroup: trainer.kubeflow.org, kind: ClusterTrainingRuntime, name: torch-distributed}
  trainer: {image: i, numNodes: NN_, numProcPerNode: 1}
]]
    for _, n in ipairs({ "0", "-2", "1.5" }) do
      local job, msg = read((tj:gsub("NN_", n)))
      assert.is_nil(job, n)
      -- (0 is valid to Trainer v2.4's CRD: refused with its own reason)
      assert.matches(n == "0" and "spec.trainer.numNodes: 0: a TrainJob of no node runs no pod"
                     or "spec.trainer.numNodes: expected an integer >= 1", msg, 1, true)
    end
    local job = assert(read((tj:gsub("NN_", "3.0"))))
    assert.equal(2, job:spec().worker.replicas)
  end)

  it("an explicit request of 0 under a limit is not silently the limit (core/v1 defaults: only a missing request is)", function()
    local text = pytorch("      replicas: 1\n"):gsub("image: img\n$",
      "image: img\n            resources: {limits: {cpu: \"2\"}, requests: {cpu: \"0\"}}\n")
    local job, msg = read(text)
    assert.is_nil(job)
    assert.matches("resources.requests.cpu: an explicit request of 0", msg, 1, true)
    local info
    job, info = read(text, { lossy = true })
    assert.is_truthy(job, info)
    assert.equal("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.requests.cpu",
                 info.unmapped[1].path)
  end)

  describe("scalars as kubectl reads them (sigs.k8s.io/yaml: go-yaml v2, YAML 1.1)", function()
    it("a leading 0 is octal, 0x hex, 0o octal, 0b binary, '_' dropped", function()
      for text, want in pairs({ ["010"] = 8, ["0x10"] = 16, ["0o17"] = 15, ["0b101"] = 5,
                                ["1_000"] = 1000, ["+3"] = 3, ["09"] = 9, ["1e1"] = 10 }) do
        local job, info = read(pytorch("      replicas: 1\n", "  runPolicy: {backoffLimit: " .. text .. "}\n"))
        assert.is_truthy(job, info)
        assert.equal(want, job:spec().run_policy.backoff_limit, text)
      end
    end)

    it("defaultMode: 0400 is 256 (octal), kept in the pod template", function()
      local text = pytorch("      replicas: 1\n"):gsub("image: img\n$", [[
image: img
          volumes:
          - name: s
            secret: {secretName: s, defaultMode: 0400}
]])
      local job, info = read(text)
      assert.is_truthy(job, info)
      local s = kfjob.to_lua(job)
      assert.matches("defaultMode = 256", s, 1, true)
    end)

    it("yes, no, on, off, y and n are booleans: where a string is read they are refused with the path", function()
      local function env(v, arg)
        return (pytorch("      replicas: 1\n"):gsub("image: img\n$", ("image: img\n            env: [{name: DEBUG, value: %s}]\n"
          .. "            args: [--flag, %s]\n"):format(v, arg)))
      end
      for _, w in ipairs({ "yes", "off", "y", "N", "On" }) do
        local job, msg = read(env(w, "x"))
        assert.is_nil(job, w)
        assert.matches("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].env[0].value: expected a string",
                       msg, 1, true)
        job, msg = read(env('"x"', w))
        assert.is_nil(job, w)
        assert.matches("containers[0].args[1]: expected a string", msg, 1, true)
      end
      local job, info = read(env('"on"', "'no'"))
      assert.is_truthy(job, info)
      local lua = kfjob.to_lua(job)
      assert.matches('"--flag",%s*"no"', lua)
      assert.matches('DEBUG = "on"', lua, 1, true)
    end)

    it("quoted scalars stay strings; data configs keep YAML 1.2 unless they say %YAML 1.1", function()
      assert.equal("010", kfjob.read_yaml('a: "010"').a)
      assert.equal(10, kfjob.read_yaml("a: 010").a)
      assert.equal("yes", kfjob.read_yaml("a: yes").a)
      local t = assert(kfjob.read_yaml("%YAML 1.1\n---\na: [010, 0x1F, yes, 'yes', 1_000]\n"))
      assert.same({ 8, 31, true, "yes", 1000 }, t.a)
    end)
  end)
end)

describe("round 5: valid input read, bad input explained", function()
  it("JSON's escaped surrogate pair (Python json.dumps) is the UTF-8 character", function()
    local text = '{"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "t",'
      .. ' "annotations": {"x": "\\ud83d\\ude00 \\u00e9"}}, "spec": {"pytorchReplicaSpecs": {"Master":'
      .. ' {"replicas": 1, "template": {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}}}}}'
    local job, info = read(text)
    assert.is_truthy(job, info)
    assert.equal("\240\159\152\128 \195\169", job:spec().annotations.x)
    -- a lone surrogate in JSON is U+FFFD, as kubectl's encoding/json reads it
    local lone = assert(read((text:gsub("\\ude00", "x"))))
    assert.equal("\239\191\189x \195\169", lone:spec().annotations.x)
    -- in YAML it stays an error (go-yaml: invalid Unicode character escape code)
    local yaml = 'apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: t, annotations: {x: "\\ud83d"}}\n'
      .. 'spec: {pytorchReplicaSpecs: {Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: i}]}}}}}\n'
    assert.is_nil(read(yaml))
  end)

  it("a UTF-8 byte order mark at the start is accepted", function()
    local job, info = read("\239\187\191" .. pytorch("      replicas: 2\n"))
    assert.is_truthy(job, info)
    assert.equal(2, job:spec().worker.replicas)
  end)

  it("flow style and quoted keys read", function()
    local job, info = read([[{apiVersion: kubeflow.org/v1, 'kind': PyTorchJob, "metadata": {name: t,
  creationTimestamp: null}, spec: {pytorchReplicaSpecs: {Master: {"replicas": 1, template: {metadata:
  {creationTimestamp: null}, spec: {containers: [{name: pytorch, image: img, args: [a, b]}]}}}}}}]])
    assert.is_truthy(job, info)
    assert.same({ "a", "b" }, job:spec().container.args)
  end)

  it("a NUL byte is reported as one, with its offset", function()
    local job, msg = read("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\0\n")
    assert.is_nil(job)
    assert.matches("a NUL byte at offset 44", msg, 1, true)
  end)

  it("a misspelt kind gets a did-you-mean", function()
    local job, msg = read((pytorch("      replicas: 1\n"):gsub("kind: PyTorchJob", "kind: PytorchJob")))
    assert.is_nil(job)
    assert.matches("did you mean 'PyTorchJob'?", msg, 1, true)
  end)

  it("two long unknown keys are two rows, each with its whole path", function()
    local a, b = ("k"):rep(150), ("k"):rep(150) .. "z"
    local job, info = read(pytorch("      replicas: 1\n", ("  %s: 1\n  %s: 2\n"):format(a, b)),
                           { lossy = true })
    assert.is_truthy(job, info)
    assert.equal(2, #info.unmapped)
    assert.equal("spec." .. a, info.unmapped[1].path)
    assert.equal("spec." .. b, info.unmapped[2].path)
  end)
end)

describe("round 5: the CLI", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local dir
  setup(function() dir = util.tmpdir() end)
  teardown(function() os.execute("rm -rf " .. util.quote(dir)) end)
  local function file(name, text) return util.write(dir .. "/" .. name, text) end

  it("a manifest with a BOM, or in flow style, converts as a manifest", function()
    local code, out, err = util.kfjob("convert", file("bom.yaml", "\239\187\191" .. pytorch("      replicas: 2\n")), "-f", "lua")
    assert.equal(0, code, err)
    assert.matches("replicas = 2", out, 1, true)
    code, out, err = util.kfjob("convert", file("flow.yaml",
      '{apiVersion: kubeflow.org/v1, "kind": PyTorchJob, metadata: {name: t}, spec: {pytorchReplicaSpecs:'
      .. ' {Master: {replicas: 1, template: {spec: {containers: [{name: pytorch, image: img}]}}}}}}'), "-f", "lua")
    assert.equal(0, code, err)
    assert.matches("kfjob.PyTorchJob", out, 1, true)
  end)

  it("a data config or JSON manifest with a BOM reads", function()
    local code, out, err = util.kfjob("convert", file("bomd.json",
      '\239\187\191{"kind": "PyTorchJob", "worker": {"replicas": 2}}'), "-f", "lua")
    assert.equal(0, code, err)
    assert.matches("replicas = 2", out, 1, true)
    local rc, _, msg = util.kfjob("render", file("bomd.yaml", "\239\187\191kind: PyTorchJob\nworker: {replicas: 2}\n"),
                                  "--image", "i", "-f", "manifest")
    assert.equal(0, rc, msg)
    code, out, err = util.kfjob("convert", file("bomm.json", "\239\187\191" .. '{"apiVersion": "kubeflow.org/v1",'
      .. ' "kind": "PyTorchJob", "metadata": {"name": "t"}, "spec": {"pytorchReplicaSpecs": {"Master":'
      .. ' {"replicas": 1, "template": {"spec": {"containers": [{"name": "pytorch", "image": "i"}]}}}}}}'))
    assert.equal(0, code, err)
    assert.matches('^{"apiVersion"', out)   -- JSON in, JSON back
  end)

  it("a NUL byte in a manifest or data config: named with its offset, exit 2", function()
    local code, _, err = util.kfjob("convert", file("nul.yaml", "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\0\n"), "-f", "lua")
    assert.equal(2, code)
    assert.matches("a NUL byte at offset 44", err, 1, true)
    assert.not_matches("TaskTemplate", err, 1, true)
    code, _, err = util.kfjob("convert", file("nuld.yaml", "kind: PyTorchJob\nworker: {replicas: 2}\0\n"), "-f", "lua")
    assert.equal(2, code)
    assert.matches("a NUL byte at offset 38", err, 1, true)
  end)

  it("a misspelt kind exits 2 with a did-you-mean", function()
    local code, _, err = util.kfjob("convert", file("kind.yaml",
      (pytorch("      replicas: 1\n"):gsub("kind: PyTorchJob", "kind: PytorchJob"))), "-f", "lua")
    assert.equal(2, code)
    assert.matches("did you mean 'PyTorchJob'?", err, 1, true)
  end)

  it("a data config's \"$schema\" key is ignored, in YAML and JSON", function()
    local code, _, err = util.kfjob("render", file("s.yaml",
      '"$schema": kfjob.schema.json\nkind: PyTorchJob\nworker: {replicas: 2}\n'), "--image", "i", "-f", "manifest")
    assert.equal(0, code, err)
    code, _, err = util.kfjob("render", file("s.json",
      '{"$schema": "kfjob.schema.json", "kind": "PyTorchJob", "worker": {"replicas": 2}}'), "--image", "i", "-f", "manifest")
    assert.equal(0, code, err)
  end)

  it("a JSON data config with escaped surrogate pairs reads", function()
    local code, out, err = util.kfjob("convert", file("sp.json",
      '{"kind": "PyTorchJob", "worker": {"replicas": 2}, "annotations": {"a": "\\ud83d\\ude00"}}'), "-f", "lua")
    assert.equal(0, code, err)
    assert.matches("\240\159\152\128", out, 1, true)
  end)

  it("convert -f lua|config of a data config without --to holds each job some target runs", function()
    local p = file("two.yaml", "jobs:\n  a: {kind: MPIJob, worker: {replicas: 2}, mpi_implementation: Intel}\n"
      .. "  b: {kind: PyTorchJob, worker: {replicas: 2}, runtime: torch-distributed}\n"
      .. "  c: {kind: PyTorchJob, worker: {replicas: 2}, container: {env: [{name: A, valueFrom:"
      .. " {fieldRef: {fieldPath: metadata.name}}}]}}\n")
    local code, out, err = util.kfjob("convert", p, "-f", "lua")
    assert.equal(0, code, err)
    assert.matches('mpi_implementation = "Intel"', out, 1, true)
    assert.matches('runtime = "torch-distributed"', out, 1, true)
    code, out, err = util.kfjob("convert", p, "-f", "config")
    assert.equal(0, code, err)
    assert.matches('"valueFrom"', out, 1, true)
    -- a job no target runs is still refused
    local rc, _, msg = util.kfjob("convert", file("r.yaml", "kind: PyTorchJob\nmaster: {replicas: 2}\n"), "-f", "lua")
    assert.equal(1, rc)
    assert.matches("master.replicas", msg, 1, true)
  end)

  it("messages about a manifest name its fields and the command's flags, not the Lua API's opts.*", function()
    local long = ("a"):rep(60)
    local p = file("long.yaml", (pytorch("      replicas: 1\n"):gsub("name: t\n", "name: " .. long .. "\n", 1)))
    local code, _, err = util.kfjob("convert", p, "--to", "operator")
    assert.equal(1, code)
    assert.matches("long.yaml: document 1: kfjob.PyTorchJob: metadata.name: too long", err, 1, true)
    assert.not_matches("opts%.", err)
    code, _, err = util.kfjob("convert", file("ok.yaml", pytorch("      replicas: 1\n")), "--kind", "TFJob")
    assert.equal(1, code)
    assert.matches("--kind: a PyTorchJob cannot be read as TFJob", err, 1, true)
    assert.not_matches("opts%.", err)
  end)

  it("a JSON data config over 16 MiB is refused as a YAML one is (docs/LIMITS.md)", function()
    local text = '{"kind": "PyTorchJob", "worker": {"replicas": 1}}' .. (" "):rep(17 * 1024 * 1024)
    local code, _, err = util.kfjob("render", file("big.json", text), "--image", "i", "-f", "manifest")
    assert.equal(1, code)
    assert.matches("text larger than the limit", err, 1, true)
  end)
end)
