-- Specs for `kfjob env` (SPEC §11): each pod's environment on a target,
-- run as a separate process (build/kfjob, or $KFJOB_CLI) like cli_spec.lua.
-- Expected values are written by hand from FACTS §8.2.
local util = require "util"
if not util.cli_ok then
  describe("kfjob env", function() pending(util.cli_why()) end)
  return
end

local json = require "dkjson"
local KFJOB, quote, kfjob = util.KFJOB, util.quote, util.kfjob

local TMP = os.tmpname()
os.remove(TMP)
assert(os.execute("mkdir -p " .. quote(TMP)))
local function path(name) return TMP .. "/" .. name end
local CONFIGS = {
  ["pt4.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.PyTorchJob{ worker = { replicas = 3 } }\n",
  ["mpi.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.MPIJob{ worker = { replicas = 2 }, slots = 2 }\n",
  ["el.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.Elastic{ nnodes = '2:4', nproc_per_node = 8, max_restarts = 3 }\n",
  ["multi.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.TFJob{ worker = { replicas = 1 },\n"
               .. "  pod_template = { spec = { containers = { { name = 'primary', env = {\n"
               .. "    { name = 'CERT', value = 'a\\nb' }, { name = 'X', value = '1' } } } } } } }\n",
  ["tf.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.TFJob{ worker = { replicas = 2 } }\n",
  -- the black-box tester's v06 (Intel) and v32 (MPICH, runLauncherAsWorker)
  ["v06.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.MPIJob{\n"
             .. "  container = { image = 'ghcr.io/acme/hpc:3', args = { 'python', 'allreduce.py' },\n"
             .. "    env = { { name = 'NCCL_DEBUG', value = 'WARN' } } },\n"
             .. "  namespace = 'hpc', worker = { replicas = 2, limits = { gpu = 1 } }, slots = 2,\n"
             .. "  mpi_implementation = 'Intel', ssh_auth_mount_path = '/home/mpiuser/.ssh' }\n",
  ["v32.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.MPIJob{\n"
             .. "  container = { image = 'ghcr.io/acme/hpc:3', args = { 'python', 'pi.py' } },\n"
             .. "  worker = { replicas = 2 }, run_launcher_as_worker = true, mpi_implementation = 'MPICH',\n"
             .. "  namespace = 'mpi' }\n",
  ["v08.lua"] = "local kfjob = require 'kfjob'\nreturn kfjob.HorovodJob{\n"
             .. "  container = { image = 'ghcr.io/acme/hvd:0.28', args = { 'python', 'hvd_train.py' } },\n"
             .. "  namespace = 'hvd', worker = { replicas = 2, limits = { gpu = 1 } },\n"
             .. "  launcher = { container = { env = { ROLE = 'launcher' } } },\n"
             .. "  slots = 1, run_launcher_as_worker = true }\n",
  -- the black-box tester's v39: a job with its own opts.name
  ["v39.lua"] = "local kfjob = require 'kfjob'\n"
             .. "local job = kfjob.TFJob{ container = { image = 'i:1', env = { A = 'job' } },\n"
             .. "  namespace = 'job-ns', worker = { replicas = 2 } }\n"
             .. "return { job = job, opts = { name = 'tfo', namespace = 'opt-ns', env = { B = 'opt' } } }\n",
  ["set.lua"] = "local kfjob = require 'kfjob'\nreturn { a = kfjob.PyTorchJob{ worker = { replicas = 1 } },\n"
             .. "  b = kfjob.TFJob{ worker = { replicas = 1 } } }\n",
}
for name, src in pairs(CONFIGS) do
  local f = assert(io.open(path(name), "wb"))
  f:write(src)
  f:close()
end

-- FACTS §8.2.1 worked example 1, for pod `rank` of job `j`.
local function pt(j, rank)
  return table.concat({
    "PYTHONUNBUFFERED=1", "MASTER_PORT=23456", "PET_MASTER_PORT=23456",
    "MASTER_ADDR=" .. j .. "-master-0", "PET_MASTER_ADDR=" .. j .. "-master-0", "WORLD_SIZE=4",
    "RANK=" .. rank, "PET_NODE_RANK=" .. rank, "PET_NPROC_PER_NODE=auto", "PET_NNODES=4", "",
  }, "\n")
end

describe("kfjob env", function()
  setup(function()
    local f = io.open(KFJOB, "rb")
    assert(f, KFJOB .. " is missing: build first")
    f:close()
  end)
  teardown(function() os.execute("rm -rf " .. quote(TMP)) end)

  it("prints NAME=value lines per pod of a 4-node PyTorchJob (operator by default)", function()
    local code, out, err = kfjob("env", path("pt4.lua"), "--name", "j")
    assert.are.equal(0, code, err)
    -- the gang first: the training-operator's default, Σ replicas (job.go)
    assert.are.equal("# j: gang 4 (default)\n# j master-0\n" .. pt("j", 0) .. "# j worker-0\n" .. pt("j", 1) ..
                     "# j worker-1\n" .. pt("j", 2) .. "# j worker-2\n" .. pt("j", 3), out)
  end)

  it("names the job after the config without --name", function()
    local code, out = kfjob("env", path("pt4.lua"), "--pod", "worker-2")
    assert.are.equal(0, code)
    assert.are.equal("# pt4: gang 4 (default)\n# pt4 worker-2\n" .. pt("pt4", 3), out)
  end)

  it("-f json prints the environment table", function()
    local code, out = kfjob("env", path("el.lua"), "--name", "j", "-f", "json", "--target", "flyte")
    assert.are.equal(0, code)
    local doc = assert(json.decode(out))
    assert.are.same({
      env = {
        { name = "_F_WN", valueFrom = { fieldRef = { fieldPath = "metadata.name" } } },
        { name = "PYTHONUNBUFFERED", value = "1" },
        { name = "PET_RDZV_ENDPOINT", value = "j-worker-0:23456" },
        { name = "PET_RDZV_BACKEND", value = "c10d" },
        { name = "PET_NNODES", value = "2:4" },
        { name = "PET_MAX_RESTARTS", value = "3" },
        { name = "PET_NPROC_PER_NODE", value = "8" },
      },
      files = {},
    }, doc["worker-3"])
    local code2, one = kfjob("env", path("el.lua"), "--name", "j", "-f", "json", "--pod", "worker-1")
    assert.are.equal(0, code2)
    local keys = {}
    for k in pairs(json.decode(one)) do keys[#keys + 1] = k end
    assert.are.same({ "worker-1" }, keys)
  end)

  it("shows valueFrom variables and the MPI files as comments (-f env)", function()
    local code, out = kfjob("env", path("mpi.lua"), "--name", "m", "--target", "flyte2", "--pod", "launcher-0")
    assert.are.equal(0, code)
    assert.are.equal(table.concat({
      "# m: gang 3 (default)",   -- Flyte 2 submits a v1 MPIJob: Σ replicas, 1 + 2
      "# m launcher-0",
      '# _F_PN from valueFrom {"fieldRef":{"fieldPath":"metadata.name"}}',
      "OMPI_MCA_plm_rsh_agent=/etc/mpi/kubexec.sh", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
      "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
      "I_MPI_HYDRA_BOOTSTRAP=rsh", "I_MPI_HYDRA_BOOTSTRAP_EXEC=/etc/mpi/kubexec.sh",
      "# file /etc/mpi/kubexec.sh:", "#   #!/bin/sh", "#   set -x", "#   POD_NAME=$1", "#   shift",
      '#   /opt/kube/kubectl exec ${POD_NAME} -- /bin/sh -c "$*"',
      "# file /etc/mpi/hostfile:", "#   m-worker-0 slots=1", "#   m-worker-1 slots=1",
      "# file /etc/mpi/discover_hosts.sh:", "#   #!/bin/sh", "#   echo m-worker-0:1", "#   echo m-worker-1:1", "",
    }, "\n"), out)
  end)

  it("shows a value with a line break as a comment with its JSON string", function()
    local code, out = kfjob("env", path("multi.lua"), "--name", "t")
    assert.are.equal(0, code)
    assert.are.equal('# t: gang 1 (default)\n# t worker-0\n# CERT has a multi-line value: "a\\nb"\nX=1\n', out)
  end)

  it("takes --namespace and mpi-operator's FQDN hostfile", function()
    local code, out = kfjob("env", path("mpi.lua"), "--name", "m", "--namespace", "ns",
                            "--target", "mpi-operator", "-f", "json", "--pod", "launcher-0")
    assert.are.equal(0, code)
    assert.are.equal("m-worker-0.m.ns.svc slots=2\nm-worker-1.m.ns.svc slots=2\n",
                     json.decode(out)["launcher-0"].files["/etc/mpi/hostfile"])
  end)

  -- FACTS §8.2.4 table (launcher env by mpiImplementation; Intel and MPICH
  -- hostfile lines <host>:<s>)
  it("gives an Intel MPI launcher on mpi-operator the I_MPI_* variables", function()
    local code, out, err = kfjob("env", path("v06.lua"), "--name", "v", "--target", "mpi-operator",
                                 "--pod", "launcher-0")
    assert.are.equal(0, code, err)
    assert.are.equal(table.concat({
      "# v launcher-0", "NCCL_DEBUG=WARN", "K_MPI_JOB_ROLE=launcher",
      "I_MPI_HYDRA_HOST_FILE=/etc/mpi/hostfile",
      "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS=-o ConnectionAttempts=10", "I_MPI_PERHOST=2",
      "NVIDIA_VISIBLE_DEVICES=", "NVIDIA_DRIVER_CAPABILITIES=",
      "# file /etc/mpi/hostfile:", "#   v-worker-0.v.hpc.svc:2", "#   v-worker-1.v.hpc.svc:2",
      "# file /etc/mpi/discover_hosts.sh:", "#   #!/bin/sh", "#   echo v-worker-0.v.hpc.svc",
      "#   echo v-worker-1.v.hpc.svc", "",
    }, "\n"), (out:gsub("^# v: gang [^\n]*\n", "")))   -- the gang line is not this test's
  end)

  -- FACTS §8.2.4 table: runLauncherAsWorker lists the launcher first in
  -- hostfile and discover_hosts.sh and leaves NVIDIA_* unset
  it("lists an MPICH launcher-as-worker first, without NVIDIA_* (mpi-operator)", function()
    local code, out, err = kfjob("env", path("v32.lua"), "--name", "w", "--target", "mpi-operator",
                                 "-f", "json", "--pod", "launcher-0")
    assert.are.equal(0, code, err)
    assert.are.same({
      env = {
        { name = "K_MPI_JOB_ROLE", value = "launcher" },
        { name = "HYDRA_HOST_FILE", value = "/etc/mpi/hostfile" },
        { name = "HYDRA_LAUNCH_EXTRA_ARGS", value = "-o ConnectionAttempts=10" },
      },
      files = {
        ["/etc/mpi/hostfile"] = "w-launcher.w.mpi.svc:1\nw-worker-0.w.mpi.svc:1\nw-worker-1.w.mpi.svc:1\n",
        ["/etc/mpi/discover_hosts.sh"] = "#!/bin/sh\necho w-launcher.w.mpi.svc\necho w-worker-0.w.mpi.svc\n" ..
                                         "echo w-worker-1.w.mpi.svc\n",
      },
    }, json.decode(out)["launcher-0"])
  end)

  it("keeps a HorovodJob launcher-as-worker's GPUs and lists it with its slots", function()
    local code, out, err = kfjob("env", path("v08.lua"), "--name", "h", "--target", "mpi-operator",
                                 "--pod", "launcher-0")
    assert.are.equal(0, code, err)
    assert.are.equal(table.concat({
      "# h launcher-0", "ROLE=launcher", "K_MPI_JOB_ROLE=launcher",
      "OMPI_MCA_orte_keep_fqdn_hostnames=true", "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile",
      "OMPI_MCA_plm_rsh_args=-o ConnectionAttempts=10", "OMPI_MCA_orte_set_default_slots=1",
      "# file /etc/mpi/hostfile:", "#   h-launcher.h.hvd.svc slots=1", "#   h-worker-0.h.hvd.svc slots=1",
      "#   h-worker-1.h.hvd.svc slots=1",
      "# file /etc/mpi/discover_hosts.sh:", "#   #!/bin/sh", "#   echo h-launcher.h.hvd.svc",
      "#   echo h-worker-0.h.hvd.svc", "#   echo h-worker-1.h.hvd.svc", "",
    }, "\n"), (out:gsub("^# h: gang [^\n]*\n", "")))
  end)

  -- the headers name the resources the values describe: FACTS §8.2.1's
  -- TF_CONFIG hosts are <name>-worker-<i>.<ns>.svc, <name> = opts.name
  it("names the job in its headers by its opts.name, as its values do", function()
    local code, out, err = kfjob("env", path("v39.lua"), "--pod", "worker-1")
    assert.are.equal(0, code, err)
    assert.are.equal(table.concat({
      "# tfo: gang 2 (default)", "# tfo worker-1", "B=opt",
      'TF_CONFIG={"cluster":{"worker":["tfo-worker-0.opt-ns.svc:2222","tfo-worker-1.opt-ns.svc:2222"]},'
        .. '"task":{"type":"worker","index":1},"environment":"cloud"}', "",
    }, "\n"), out)
    -- opts.name wins over --name too (docs/CLI.md: a job's opts win over the flags)
    local code2, out2 = kfjob("env", path("v39.lua"), "--name", "flag", "--pod", "worker-0")
    assert.are.equal(0, code2)
    assert.are.equal("# tfo: gang 2 (default)\n# tfo worker-0\n", out2:match("^# [^\n]*\n# [^\n]*\n"))
  end)

  it("prints every job of a named set (one JSON document each)", function()
    local code, out = kfjob("env", path("set.lua"), "-f", "json")
    assert.are.equal(0, code)
    local n = 0
    for l in out:gmatch("[^\n]+") do
      n = n + 1
      assert.is_table(json.decode(l))
    end
    assert.are.equal(2, n)
  end)

  it("a misspelt --target gets a did-you-mean and exit 2", function()
    local code, out, err = kfjob("env", path("pt4.lua"), "--target", "trainer-23")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.truthy(err:find("unknown target 'trainer-23' (did you mean 'trainer-2.3'?)", 1, true), err)
  end)

  it("a target that does not run the kind is an invalid job (exit 1)", function()
    local code, _, err = kfjob("env", path("tf.lua"), "--target", "trainer-2.2")
    assert.are.equal(1, code)
    assert.truthy(err:find("target 'trainer-2.2' does not run a TFJob", 1, true), err)
  end)

  it("an unknown --pod lists the pods (exit 2)", function()
    local code, out, err = kfjob("env", path("pt4.lua"), "--pod", "worker-9")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.truthy(err:find("no pod 'worker-9' in " .. path("pt4.lua") ..
                           " (pods: master-0, worker-0, worker-1, worker-2)", 1, true), err)
  end)

  it("-f takes env or json only; render does not take the environment format", function()
    local code, _, err = kfjob("env", path("pt4.lua"), "-f", "yaml")
    assert.are.equal(2, code)
    assert.truthy(err:find("env -f expects env or json, got 'yaml'", 1, true), err)
    code = kfjob("render", path("pt4.lua"), "-f", "environment")
    assert.are.equal(2, code)
    code = kfjob("render", path("pt4.lua"), "--pod", "x")
    assert.are.equal(2, code)
  end)

  it("is listed in --help", function()
    local code, out = kfjob("--help")
    assert.are.equal(0, code)
    assert.truthy(out:find("  env    CONFIG.lua", 1, true))
  end)

  -- Property: whatever names and values the pod template's env holds, every
  -- line of -f env is a comment or NAME=value with a name Kubernetes'
  -- IsEnvVarName takes, no line holds a break some reader splits on (VT,
  -- FF, FS/GS/RS, NEL, U+2028/9), and reading the NAME=value lines back gives
  -- exactly the operator's variables plus the plain entries of the template.
  it("keeps -f env an env file for any names and values (property)", function()
    local pieces = { "A", "b", "_", "1", "-", ".", "=", " ", "\n", "\r", "\v", "\f", "\28",
                     "\194\133", "\226\128\168", "\226\128\169", "LD_PRELOAD=x", "\195\169", "#" }
    local breaks = { "\n", "\r", "\v", "\f", "\28", "\29", "\30", "\194\133", "\226\128\168", "\226\128\169" }
    local function has_break(x)
      for _, b in ipairs(breaks) do if x:find(b, 1, true) then return true end end
      return false
    end
    local function valid(n) return n:match("^[-._a-zA-Z][-._a-zA-Z0-9]*$") ~= nil end
    local function parse(out)
      local vars = {}
      for line in (out .. "\n"):gmatch("([^\n]*)\n") do
        assert.is_false(has_break(line), line)
        if line ~= "" and line:sub(1, 1) ~= "#" then
          local n, v = line:match("^([^=]*)=(.*)$")
          assert.is_truthy(n and valid(n), line)
          vars[n] = v
        end
      end
      return vars
    end
    local function run(env)
      local parts = {}
      for _, e in ipairs(env) do parts[#parts + 1] = ("{ name = %q, value = %q }"):format(e[1], e[2]) end
      local f = assert(io.open(path("prop.lua"), "wb"))
      f:write("local kfjob = require 'kfjob'\nreturn kfjob.TFJob{ worker = { replicas = 1 },\n",
              "  pod_template = { spec = { containers = { { name = 'primary', env = {\n",
              table.concat(parts, ",\n"), "\n} } } } } }\n")
      f:close()
      local code, out, err = kfjob("env", path("prop.lua"), "--name", "j", "--pod", "worker-0")
      return code, code == 0 and parse(out) or err
    end
    local _, base = run({ { "KEEP", "1" } })
    base.KEEP = nil
    math.randomseed(32)
    local function rnd()
      local t = {}
      for i = 1, math.random(0, 6) do t[i] = pieces[math.random(#pieces)] end
      return table.concat(t)
    end
    for _ = 1, 40 do
      local env, ok_env, seen, want, refused = {}, {}, {}, {}, false
      for k, v in pairs(base) do want[k] = v end
      for _ = 1, 8 do
        local n, v = rnd(), rnd()
        if not seen[n] and not base[n] then
          seen[n] = true
          env[#env + 1] = { n, v }
          -- a name IsEnvVarName refuses is refused at construction, with its path
          if valid(n) then ok_env[#ok_env + 1] = env[#env] else refused = true end
          if valid(n) and not has_break(v) then want[n] = v end
        end
      end
      if refused then
        local code, err = run(env)
        assert.are.equal(1, code)
        assert.is_truthy(err:find("pod_template.spec.containers[1].env[", 1, true), err)
      end
      if #ok_env > 0 then
        local code, got = run(ok_env)
        assert.are.equal(0, code, got)
        assert.are.same(want, got)
      end
    end
  end)
end)
