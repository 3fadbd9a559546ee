-- An example config for the gateway: two PyTorch jobs whose worker count
-- comes from the gateway's KEY=VALUE arguments (params.workers).  The
-- parameters are the global `params` and also the chunk's first argument.
local kfjob = require "kfjob"
local params = ...

local workers = params.workers or 2
local base = {
  worker = { replicas = workers, image = "ghcr.io/acme/train:1.0",
             requests = { cpu = 4, mem = "16Gi" } },
  master = { image = "ghcr.io/acme/train:1.0" },
}

return {
  ["train-small"] = kfjob.PyTorchJob(base),
  ["train-large"] = kfjob.PyTorchJob(base):with{ ["worker.replicas"] = workers * 4 },
}
