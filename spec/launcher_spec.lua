-- Specs for job:launcher_command (SPEC §2.2, FACTS §2.5-§2.6): the mpirun /
-- horovodrun prefix flytekit puts in front of the task command, then args.

local kfjob = require "kfjob"

local error_of = require("util").error_of

local function mpirun(np)
  return { "mpirun", "--allow-run-as-root", "-bind-to", "none", "-map-by", "slot",
           "-x", "LD_LIBRARY_PATH", "-x", "PATH", "-x", "NCCL_DEBUG=INFO",
           "-mca", "pml", "ob1", "-mca", "btl", "^openib", "-np", tostring(np) }
end

local function horovodrun(np, slots, o)
  o = o or {}
  local t = { "horovodrun", "-np", tostring(np), "--log-level", o.log_level or "INFO",
              "--network-interface", "eth0", "--min-np", tostring(np), "--max-np", tostring(np),
              "--slots-per-host", tostring(slots), "--host-discovery-script",
              o.discovery or "/etc/mpi/discover_hosts.sh", "--elastic-timeout", tostring(o.timeout or 1200) }
  if o.verbose then t[#t + 1] = "--verbose" end
  return t
end

local function concat(a, b)
  local t = {}
  for _, v in ipairs(a) do t[#t + 1] = v end
  for _, v in ipairs(b or {}) do t[#t + 1] = v end
  return t
end

describe("job:launcher_command", function()
  describe("MPIJob", function()
    it("FACTS §2.5 worked example: -np 4, then python <entrypoint> and the task command", function()
      local job = kfjob.MPIJob{ launcher = { replicas = 1, requests = { cpu = "1" } },
                                worker = { replicas = 2, command = { "/usr/sbin/sshd", "-De" } },
                                slots = 2, run_policy = { backoff_limit = 3 } }
      local args = { "python", "/opt/venv/bin/entrypoint.py", "pyflyte-execute", "--inputs", "x" }
      assert.same(concat(mpirun(4), args), job:launcher_command(args))
    end)

    it("-np is workers x slots", function()
      for _, c in ipairs{ { 1, 1, 1 }, { 2, 2, 4 }, { 10, 1, 10 }, { 3, 4, 12 }, { 16, 8, 128 } } do
        local job = kfjob.MPIJob{ worker = { replicas = c[1] }, slots = c[2] }
        assert.same(mpirun(c[3]), job:launcher_command())
      end
    end)

    it("the deprecated num_workers counts as the worker replicas", function()
      assert.same(mpirun(10), kfjob.MPIJob{ num_workers = 5, slots = 2 }:launcher_command())
    end)

    it("does not overflow int32 arithmetic", function()
      local job = kfjob.MPIJob{ worker = { replicas = 2147483647 }, slots = 2147483647 }
      assert.equal("4611686014132420609", job:launcher_command()[20])
    end)

    it("args follow the prefix unchanged; nil or {} give the prefix alone", function()
      local job = kfjob.MPIJob{ worker = { replicas = 1 } }
      assert.same(concat(mpirun(1), { "python", "train.py", "--lr", "0.1" }),
                  job:launcher_command{ "python", "train.py", "--lr", "0.1" })
      assert.same(mpirun(1), job:launcher_command({}))
      assert.same(mpirun(1), job:launcher_command(nil))
    end)

    it("is what the manifest's launcher runs when the launcher has no command", function()
      local job = kfjob.MPIJob{ worker = { replicas = 2, command = { "sshd" } }, slots = 3 }
      local m = job:manifest{ name = "m", image = "i", args = { "python", "t.py" } }
      assert.same(job:launcher_command{ "python", "t.py" },
                  m.spec.mpiReplicaSpecs.Launcher.template.spec.containers[1].args)
      local own = kfjob.MPIJob{ worker = { replicas = 2 }, launcher = { command = { "bash", "run.sh" } } }
      assert.same({ "bash", "run.sh" }, own:manifest{ name = "m", image = "i" }
                    .spec.mpiReplicaSpecs.Launcher.template.spec.containers[1].args)
    end)
  end)

  describe("HorovodJob", function()
    it("FACTS §2.6 worked example: np 4 from 2 workers x 2 slots", function()
      local job = kfjob.HorovodJob{ worker = { replicas = 2 }, launcher = { replicas = 1 }, slots = 2 }
      assert.same(horovodrun(4, 2), job:launcher_command())
      assert.equal("horovodrun -np 4 --log-level INFO --network-interface eth0 --min-np 4 --max-np 4 "
        .. "--slots-per-host 2 --host-discovery-script /etc/mpi/discover_hosts.sh --elastic-timeout 1200",
        table.concat(job:launcher_command(), " "))
    end)

    it("no python <entrypoint> in between: args follow directly", function()
      local job = kfjob.HorovodJob{ worker = { replicas = 3 } }
      assert.same(concat(horovodrun(3, 1), { "pyflyte-execute", "--inputs", "x" }),
                  job:launcher_command{ "pyflyte-execute", "--inputs", "x" })
    end)

    it("--verbose only when verbose, after the flags and before args", function()
      local job = kfjob.HorovodJob{ worker = { replicas = 2 }, slots = 4, verbose = true }
      assert.same(concat(horovodrun(8, 4, { verbose = true }), { "python", "t.py" }),
                  job:launcher_command{ "python", "t.py" })
      assert.is_nil(table.concat(kfjob.HorovodJob{ worker = { replicas = 2 }, verbose = false }
                                   :launcher_command(), " "):find("verbose"))
    end)

    it("log level, discovery script and elastic timeout come from the job", function()
      local job = kfjob.HorovodJob{ worker = { replicas = 5 }, slots = 3, log_level = "DEBUG",
                                    discovery_script_path = "/opt/hosts.sh", elastic_timeout = 30 }
      assert.same(horovodrun(15, 3, { log_level = "DEBUG", discovery = "/opt/hosts.sh", timeout = 30 }),
                  job:launcher_command())
    end)
  end)

  it("other kinds have no launcher", function()
    for _, job in ipairs{ kfjob.TFJob{ worker = { replicas = 1 } }, kfjob.PyTorchJob{ worker = { replicas = 1 } },
                          kfjob.Elastic{ nnodes = 2 } } do
      assert.equal("kfjob.launcher_command: only MPIJob and HorovodJob have a launcher",
                   error_of(job.launcher_command, job, { "x" }))
    end
  end)

  it("args must be a list of strings", function()
    local job = kfjob.MPIJob{ worker = { replicas = 1 } }
    assert.equal("kfjob.launcher_command: args[2]: expected a string, got number",
                 error_of(job.launcher_command, job, { "python", 1 }))
    assert.equal("kfjob.launcher_command: args: expected a list of strings, got table",
                 error_of(job.launcher_command, job, { x = "y" }))
    assert.matches("bad argument #2 to '.-' %(table expected, got string%)",
                   error_of(job.launcher_command, job, "python train.py"))
  end)
end)
