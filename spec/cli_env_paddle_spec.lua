-- `kfjob env` of a PaddleJob, run as a separate process like cli_env_spec.lua.
-- Expected lines written from training-operator v1.9
-- pkg/controller.v1/paddlepaddle/envvar.go setPodEnv (PS mode: master 0
-- reads its IP from status.podIP; default port 36543, paddlepaddle_types.go).
local util = require "util"
if not util.cli_ok then
  describe("kfjob env (PaddleJob)", function() pending(util.cli_why()) end)
  return
end

local KFJOB, quote, kfjob = util.KFJOB, util.quote, util.kfjob

describe("kfjob env (PaddleJob)", function()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. quote(dir)))
  local cfg = dir .. "/pd.lua"
  local f = assert(io.open(cfg, "wb"))
  f:write("local kfjob = require 'kfjob'\nreturn kfjob.PaddleJob{ worker = { replicas = 1 } }\n")
  f:close()
  setup(function() assert(io.open(KFJOB, "rb"), KFJOB .. " is missing: build first"):close() end)
  teardown(function() os.execute("rm -rf " .. quote(dir)) end)

  it("prints each pod's variables, the downward-API one as a comment", function()
    local code, out, err = kfjob("env", cfg, "--name", "pd")
    assert.are.equal(0, code, err)
    assert.are.equal(table.concat({
      "# pd: gang 2 (default)",   -- the training-operator's default: Σ replicas (job.go)
      "# pd master-0", "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd", "PADDLE_NNODES=2",
      '# POD_IP_DUMMY from valueFrom {"fieldRef":{"fieldPath":"status.podIP"}}',
      "PADDLE_MASTER=$(POD_IP_DUMMY):36543", "PADDLE_SERVER_NUM=1",
      "# pd worker-0", "PYTHONUNBUFFERED=1", "PADDLE_JOB_ID=pd", "PADDLE_NNODES=2",
      "PADDLE_MASTER=pd-master-0:36543", "PADDLE_TRAINER_NUM=1", "" }, "\n"), out)
  end)

  it("refuses a target that does not run a PaddleJob (exit 1)", function()
    local code, _, err = kfjob("env", cfg, "--name", "pd", "--target", "flyte")
    assert.are.equal(1, code)
    assert.matches("does not run a PaddleJob", err, 1, true)
  end)
end)
