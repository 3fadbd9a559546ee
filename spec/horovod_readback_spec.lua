-- Horovod jobs read back (issue 39): kfjob's own horovodrun line (the
-- launcher line kf_launcher.c writes: -np, --log-level, --network-interface
-- eth0, --min-np, --max-np, --slots-per-host, --host-discovery-script,
-- --elastic-timeout, --verbose) is recognised only when the whole line is
-- the one kfjob writes for the job read, and then it is no group's command:
-- `kfjob.from_manifest(h:manifest{target = T})` is `==` to h on flyte,
-- operator and mpi-operator, with and without the task's args.  A line that
-- differs in any flag is the group's own command, kept verbatim.
local kfjob = require "kfjob"
local util = require "util"

local IMG = "registry.example/hvd:1"
local ARGS = { "python", "train.py", "--epochs", "3" }
local TARGETS = { "flyte", "operator", "mpi-operator" }

-- the Horovod fields besides slots and workers, alone and together
local OPTION_SETS = {
  { name = "defaults", o = {} },
  { name = "verbose", o = { verbose = true } },
  { name = "log_level", o = { log_level = "DEBUG" } },
  { name = "discovery_script_path", o = { discovery_script_path = "/opt/hvd/discover.sh" } },
  { name = "elastic_timeout", o = { elastic_timeout = 60 } },
  { name = "verbose+log_level", o = { verbose = true, log_level = "WARNING" } },
  { name = "all", o = { verbose = true, log_level = "TRACE", discovery_script_path = "/x/d.sh",
                        elastic_timeout = 30 } },
  { name = "all but verbose", o = { log_level = "ERROR", discovery_script_path = "/x/d.sh",
                                    elastic_timeout = 7 } },
}
local SLOTS = { 1, 2, 3 }
local WORKERS = { 1, 2, 4 }

local function horovod(workers, slots, o, extra)
  local t = { launcher = { image = IMG }, worker = { replicas = workers, image = IMG } }
  if slots ~= 1 then t.slots = slots end
  for k, v in pairs(o) do t[k] = v end
  for k, v in pairs(extra or {}) do t[k] = v end
  return kfjob.HorovodJob(t)
end

local copy = util.copy   -- a deep copy

-- the emit options info gives back (the task's args; the image is the groups')
local function reemit(j, info, fmt)
  local c = info.container or {}
  return j:manifest{ name = info.name, namespace = info.namespace, labels = info.labels,
                     annotations = info.annotations, command = c.command, args = c.args,
                     env = c.env, target = info.target, format = fmt }
end

local function line_of(j, args) return j:launcher_command(args) end

-- the job read back: the task's args are its container.args (SPEC §16)
local function with_args(h, args) return args and h:with{ container = { args = args } } or h end

describe("Horovod read back: kfjob's own line is the launcher's, no group's command", function()
  for _, T in ipairs(TARGETS) do
    for _, set in ipairs(OPTION_SETS) do
      for _, slots in ipairs(SLOTS) do
        it(T .. ", " .. set.name .. ", slots " .. slots .. ": reads back == for every worker count, "
           .. "with and without args", function()
          for _, w in ipairs(WORKERS) do
            local h = horovod(w, slots, set.o)
            for _, args in ipairs{ false, ARGS } do
              local what = ("%s %s slots=%d workers=%d args=%s"):format(T, set.name, slots, w, tostring(args))
              local m = h:manifest{ target = T, name = "hv", args = args or nil }
              local j, info = kfjob.from_manifest(m)
              assert(j, what .. ": " .. tostring(info))
              assert.equal(T, info.target, what)
              assert.is_nil(j:spec().launcher.command, what)
              assert.is_nil(j:spec().worker.command, what)
              assert.equal(slots, j:spec().slots or 1, what)
              assert.is_true(j == with_args(h, args), what .. ": " .. kfjob.to_lua(j))
              assert.same({}, info.unmapped, what)
              if args then assert.same(ARGS, info.container.args, what)
              else assert.is_nil(info.container.args, what) end
              -- and the same bytes again
              assert.equal(h:manifest{ target = T, name = "hv", args = args or nil, format = "yaml" },
                           reemit(j, info, "yaml"), what)
            end
          end
        end)
      end
    end
  end

  it("a worker with a command of its own keeps it; the job's line is still no group's", function()
    for _, T in ipairs(TARGETS) do
      for _, set in ipairs(OPTION_SETS) do
        local h = horovod(3, 2, set.o, { worker = { replicas = 3, image = IMG, command = { "sleep", "inf" } } })
        for _, args in ipairs{ false, ARGS } do
          local what = T .. " " .. set.name .. " args=" .. tostring(args)
          local j = assert(kfjob.from_manifest(h:manifest{ target = T, name = "hv", args = args or nil }))
          assert.is_true(j == with_args(h, args), what .. ": " .. kfjob.to_lua(j))
          assert.same({ "sleep", "inf" }, j:spec().worker.command, what)
          assert.is_nil(j:spec().launcher.command, what)
        end
      end
    end
  end)

  it("flyte: slots come back from the line, whatever flags it carries (slotsPerWorker is 1)", function()
    local h = horovod(2, 2, { verbose = true, log_level = "DEBUG", elastic_timeout = 60 })
    local m = h:manifest{ target = "flyte", name = "hv" }
    assert.equal(1, m.spec.slotsPerWorker)
    local j = assert(kfjob.from_manifest(m))
    assert.equal(2, j:spec().slots)
    assert.is_true(j == h)
  end)
end)

-- Changes to kfjob's line that no job's line has: each line kept verbatim.
local function changes(h)
  local function at(l, i, v) l = copy(l); l[i] = v; return l end
  local base = line_of(h)
  local np = base[3]
  local function swap(l, a, b) l = copy(l); l[a], l[b] = l[b], l[a]; return l end
  local out = {
    { "-np not workers x slots", at(base, 3, tostring(tonumber(np) + 1)) },
    { "--num-proc for -np", at(base, 2, "--num-proc") },
    { "another network interface", at(base, 7, "eth1") },
    { "--min-np differs", at(base, 9, "1") },
    { "--max-np differs", at(base, 11, tostring(tonumber(np) * 2)) },
    { "--slots-per-host not the job's slots", at(base, 13, "7") },
    { "an elastic timeout not in decimal", at(base, 17, "0" .. base[17]) },
    { "an elastic timeout of 0", at(base, 17, "0") },
    { "a log level that is no token", at(base, 5, "DE BUG") },
    { "flags reordered", swap(swap(base, 8, 10), 9, 11) },
    { "--log-level moved to the end", (function()
        local l = { base[1], base[2], base[3] }
        for i = 6, #base do l[#l + 1] = base[i] end
        l[#l + 1] = base[4]; l[#l + 1] = base[5]
        return l
      end)() },
  }
  -- a flag more, a flag less
  local more = copy(base); table.insert(more, 2, "--gloo")
  local less = copy(base); table.remove(less, 7); table.remove(less, 6)
  out[#out + 1] = { "a flag more (--gloo)", more }
  out[#out + 1] = { "a flag less (no --network-interface)", less }
  local cut = copy(base); cut[#cut] = nil; cut[#cut] = nil
  out[#out + 1] = { "cut before --elastic-timeout's value", cut }
  return out
end

local function containers(m, role)
  local r = m.spec.mpiReplicaSpecs[role]
  return r and r.template.spec.containers[1]
end

describe("Horovod read back: a hand-written horovodrun line is the group's command, kept", function()
  for _, T in ipairs(TARGETS) do
    for _, set in ipairs{ OPTION_SETS[1], OPTION_SETS[2], OPTION_SETS[7] } do
      it(T .. ", " .. set.name .. ": every change to a flag keeps the line verbatim", function()
        local h = horovod(2, 2, set.o)
        for _, args in ipairs{ false, ARGS } do
          for _, ch in ipairs(changes(h)) do
            local line = copy(ch[2])
            for _, a in ipairs(args or {}) do line[#line + 1] = a end
            -- the launcher's alone (the worker, when it has args, keeps kfjob's line)
            for _, both in ipairs{ false, true } do
              local what = ("%s %s args=%s both=%s: %s"):format(T, set.name, tostring(args),
                                                               tostring(both), ch[1])
              local m = h:manifest{ target = T, name = "hv", args = args or nil }
              containers(m, "Launcher").args = copy(line)
              local worker_line = containers(m, "Worker").args
              if both and worker_line then containers(m, "Worker").args = copy(line) end
              local j, info = kfjob.from_manifest(m)
              assert(j, what .. ": " .. tostring(info))
              assert.equal("HorovodJob", j.kind, what)
              assert.same(line, j:spec().launcher.command, what)
              if worker_line and not both and T == "operator" and not args then
                -- v1: with the launcher's own command and no task args kfjob
                -- writes the worker bare (the operator runs sleep 365d there,
                -- mpijob_controller.go newWorker), so a worker given kfjob's
                -- line keeps it as its own
                assert.same(worker_line, j:spec().worker.command, what)
                assert.is_true(j == h:with{ launcher = { command = line },
                                            worker = { command = worker_line } },
                               what .. ": " .. kfjob.to_lua(j))
              elseif worker_line and not both then
                -- the worker's is kfjob's line: the job's settings and the task's args
                assert.is_nil(j:spec().worker.command, what)
                assert.is_true(j == with_args(h, args):with{ launcher = { command = line } },
                               what .. ": " .. kfjob.to_lua(j))
                if args then assert.same(ARGS, info.container.args, what) end
              elseif worker_line then
                assert.same(line, j:spec().worker.command, what)
                assert.is_nil(info.container.args, what)
              else   -- mpi-operator: the worker runs sshd
                assert.is_nil(j:spec().worker.command, what)
                assert.is_nil(info.container.args, what)
              end
              -- nothing lost: emitting the job again gives the manifest read
              local y = reemit(j, info, "table")
              assert.same(line, containers(y, "Launcher").args, what)
              if worker_line then assert.same(containers(m, "Worker").args, containers(y, "Worker").args, what) end
            end
          end
        end
      end)
    end
  end

  it("a group whose args are kfjob's line with another task's args keeps them as its command", function()
    -- the writer gives every group without a command of its own the same
    -- line and args: the first group's (in the kind's order) are the task's
    local h = horovod(2, 2, { verbose = true })
    for _, T in ipairs{ "flyte", "operator" } do
      for _, role in ipairs{ "Launcher", "Worker" } do
        local m = h:manifest{ target = T, name = "hv", args = ARGS }
        local other = line_of(h, { "python", "other.py" })
        containers(m, role).args = copy(other)
        local j, info = assert(kfjob.from_manifest(m))
        local own = j:spec().launcher.command and "launcher" or "worker"
        local rest = own == "launcher" and "worker" or "launcher"
        assert.is_nil(j:spec()[rest].command, T .. " " .. role)
        assert.same(containers(m, own == "launcher" and "Launcher" or "Worker").args, j:spec()[own].command)
        assert.same(containers(m, rest == "launcher" and "Launcher" or "Worker").args,
                    line_of(h, info.container.args), T .. " " .. role)
        -- nothing lost
        local y = reemit(j, info, "table")
        assert.same(containers(m, "Launcher").args, containers(y, "Launcher").args, T .. " " .. role)
        assert.same(containers(m, "Worker").args, containers(y, "Worker").args, T .. " " .. role)
      end
    end
  end)
end)

describe("Horovod read back: kfjob convert does not bake the line in", function()
  if not util.cli_ok then pending(util.cli_why()) return end
  local TMP = util.tmpdir()
  local put = util.writer(TMP)   -- put(name, text): a file in TMP, its path

  for _, T in ipairs(TARGETS) do
    for _, set in ipairs{ OPTION_SETS[1], OPTION_SETS[7] } do
      it(T .. " (" .. set.name .. ") to every other target and to a config", function()
        local h = horovod(2, 2, set.o)
        local file = put(T .. "-" .. set.name:gsub("%W", "_") .. ".yaml",
                         h:manifest{ target = T, name = "hv", format = "yaml" })
        for _, to in ipairs(TARGETS) do
          local code, out, err = util.kfjob("convert", file, "--to", to, "-f", "lua")
          assert.equal(0, code, err)
          assert.is_nil(out:find("horovodrun", 1, true), T .. " -> " .. to .. ": " .. out)
          assert.equal(kfjob.to_lua{ hv = h }, out, T .. " -> " .. to)
          code, out, err = util.kfjob("convert", file, "--to", to)
          assert.equal(0, code, err)
          assert.equal(h:manifest{ target = to, name = "hv", format = "yaml" }, out, T .. " -> " .. to)
        end
      end)
    end
  end
end)
