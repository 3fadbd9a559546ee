-- Conformance: kfjob's wire bytes and JSON against the reference protobuf
-- runtime (Debian protoc + python3-protobuf), via spec/conformance/flytekit_ref.py,
-- an independent re-implementation of flytekit's get_custom. Cases live in
-- spec/conformance/cases.lua. Without protoc/python3-protobuf every test is
-- reported pending with the reason (never failed, never silently passed).
--
-- Two blocks so the JSON part can run on its own or be left out:
--   busted --lua=lua5.4 --filter-out="json/task_template" spec/conformance_spec.lua
--   busted --lua=lua5.4 --filter="json/task_template" spec/conformance_spec.lua

-- Paths relative to this file, so the suite works from any directory.
local here = debug.getinfo(1, "S").source:match("^@(.*)[/\\][^/\\]*$") or "."
local root = here .. "/.."
-- Debian's python (the one with python3-protobuf), not a pyenv python3 on PATH.
local PY = os.getenv("KFJOB_CONFORMANCE_PYTHON") or "/usr/bin/python3"

local json = dofile(here .. "/conformance/json.lua")
local cases = dofile(here .. "/conformance/cases.lua")

local TASK_TYPE = { TFJob = "tensorflow", PyTorchJob = "pytorch", Elastic = "pytorch",
  MPIJob = "mpi", HorovodJob = "mpi" }

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local sh_ok = require("util").sh_ok
local function slurp(path)
  local f = io.open(path, "rb"); if not f then return "" end
  local s = f:read("*a"); f:close(); return s
end

local function missing_prerequisite()
  if not sh_ok("command -v protoc") then return "protoc not found (apt-get install protobuf-compiler)" end
  if not sh_ok(PY .. " -c 'import google.protobuf.json_format'") then
    return PY .. " cannot import google.protobuf (apt-get install python3-protobuf)"
  end
  if not sh_ok("test -r /usr/include/google/protobuf/struct.proto") then
    return "/usr/include/google/protobuf/struct.proto missing (apt-get install libprotobuf-dev)"
  end
end

-- Expected outputs, computed once on first use: name -> {hex=, json=}.
local expected, skip_reason
local function reference()
  if expected or skip_reason then return expected, skip_reason end
  skip_reason = missing_prerequisite()
  if skip_reason then
    skip_reason = "conformance skipped: " .. skip_reason
    io.stderr:write(skip_reason .. "\n")
    return nil, skip_reason
  end
  local input, errf = os.tmpname(), os.tmpname()
  local f = assert(io.open(input, "wb")); f:write(json(cases)); f:close()
  local p = assert(io.popen(table.concat({ PY, q(here .. "/conformance/flytekit_ref.py"),
    "--proto", q(root .. "/proto"), "--runtime-version", q(require("kfjob")._VERSION),
    q(input), "2>" .. q(errf) }, " ")))
  local out = p:read("*a")
  local ok = p:close()
  local err = slurp(errf)
  os.remove(input); os.remove(errf)
  -- A broken reference is a failure, not a skip.
  assert(ok, "flytekit_ref.py failed:\n" .. err)
  expected = {}
  for line in out:gmatch("[^\n]+") do
    local name, hex, js = line:match("^([^\t]*)\t(%x*)\t(.*)$")
    assert(name, "flytekit_ref.py: bad output line: " .. line)
    expected[name] = { hex = hex, json = js }
  end
  return expected
end

-- Expected output for a case, or pending() (which ends the test) when skipped.
local function want(case)
  local ref, why = reference()
  if not ref then pending(why) end
  return assert(ref[case.name], "no reference output for " .. case.name)
end

local function tohex(s)
  return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end))
end

local copy = require("util").copy

-- Built lazily so a missing build or prerequisite shows per test, not as a load error.
local function build(case)
  local kfjob = require "kfjob"
  return kfjob[case.kind](copy(case.spec)), kfjob
end

describe("conformance", function()
  describe("encode", function()
    for _, case in ipairs(cases) do
      if not case.template and not case.taskspec then
        it(case.name .. ": encode bytes", function()
          local exp = want(case)
          local job = build(case)
          assert.are.equal(exp.hex, tohex(job:encode(copy(case.opts))))
        end)

        it(case.name .. ": decode round-trip", function()
          local exp = want(case)
          local job, kfjob = build(case)
          local bytes = job:encode(copy(case.opts))
          local back, err = kfjob.decode(TASK_TYPE[case.kind], bytes, { version = case.opts.version })
          assert(back, err)
          -- Re-encoding what was decoded gives the reference bytes again.
          assert.are.equal(exp.hex, tohex(back:encode(copy(case.opts))))
          -- Horovod-only options never reach the message: decode yields an MPIJob.
          if case.roundtrip ~= false and case.kind ~= "HorovodJob" then
            assert(back == job, "decoded job differs: " .. tostring(back) .. " vs " .. tostring(job))
          end
        end)
      end
    end
  end)

  describe("json/task_template", function()
    for _, case in ipairs(cases) do
      if case.taskspec then   -- luacheck: ignore 542 (TaskSpecs: the block below)
      elseif case.template then
        it(case.name .. ": task_template bytes", function()
          local exp = want(case)
          local job = build(case)
          assert.are.equal(exp.hex, tohex(job:task_template(copy(case.template))))
        end)

        it(case.name .. ": task_template json", function()
          local exp = want(case)
          local job = build(case)
          local opts = copy(case.template)
          opts.format = "json"
          assert.are.equal(exp.json, job:task_template(opts))
        end)
      else
        it(case.name .. ": to_json", function()
          local exp = want(case)
          local job = build(case)
          assert.are.equal(exp.json, job:to_json(copy(case.opts)))
        end)
      end
    end
  end)

  describe("task_spec", function()
    for _, case in ipairs(cases) do
      if case.taskspec then
        it(case.name .. ": task_spec bytes", function()
          local exp = want(case)
          local job = build(case)
          assert.are.equal(exp.hex, tohex(job:task_spec(copy(case.taskspec))))
        end)

        it(case.name .. ": task_spec json", function()
          local exp = want(case)
          local job = build(case)
          local opts = copy(case.taskspec)
          opts.format = "json"
          assert.are.equal(exp.json, job:task_spec(opts))
        end)

        if case.roundtrip ~= false then it(case.name .. ": decode_task_spec gives the job and options back", function()
          local exp = want(case)
          local job, kfjob = build(case)
          local bytes = job:task_spec(copy(case.taskspec))
          for _, input in ipairs({ bytes, job:task_spec({ format = "json",
              id = case.taskspec.id, container = case.taskspec.container,
              interface = case.taskspec.interface, metadata = case.taskspec.metadata,
              wrap_launcher = case.taskspec.wrap_launcher, version = case.taskspec.version,
              config = case.taskspec.config, replica_encoding = case.taskspec.replica_encoding }) }) do
            local back, info = kfjob.decode_task_spec(input)
            assert(back, info)
            -- the TaskTemplate's container is the job's container (SPEC §16); a
            -- registrable task without an image runs the worker's (task_spec)
            local ct = copy(case.taskspec.container)
            if ct then ct.image = ct.image or (case.spec.worker or {}).image end
            local whole = ct and job:with{ container = ct } or job
            if case.kind ~= "HorovodJob" then assert(back == whole, tostring(back)) end
            -- info minus what is not an option rebuilds the same bytes
            local opts = copy(info)
            opts.type, opts.runtime = nil, nil
            opts.replica_encoding = case.taskspec.replica_encoding
            -- version 0 writes the worker command there itself
            if opts.config then opts.config.worker_spec_command = nil end
            local again = (case.kind == "HorovodJob" and job or back):task_spec(opts)
            assert.are.equal(exp.hex, tohex(again))
          end
        end) end
      end
    end
  end)
end)
