-- kfjob.decode of a plugin message in which a non-repeated sub-message
-- field is given more than once: protobuf merges the occurrences (scalars:
-- the last one wins; embedded messages: merged, recursively; repeated
-- fields: joined), protobuf.dev/programming-guides/encoding "Last One Wins".
-- Every expected job below is python3-protobuf's parse of the same bytes
-- (Debian's python3-protobuf on protoc --python_out of proto/flyteidl;
-- its text form is quoted beside each case), read as kfjob reads that
-- message.  protobuf-c 1.4.1's own merge dropped the earlier occurrence's
-- proto3 scalars (docs/DECISIONS.md).
local kfjob = require "kfjob"
local wire = require "wire"
local int, msg = wire.int, wire.msg

describe("kfjob.decode merges a sub-message given twice as protobuf does", function()
  it("a replica spec twice at the top", function()
    -- 0a0208020a06120474663a32 -> worker_replicas { replicas: 2 image: "tf:2" }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, image = "tf:2" } },
      kfjob.decode("tensorflow", msg(1, int(1, 2)) .. msg(1, msg(2, "tf:2"))))
  end)

  it("common twice inside one replica spec", function()
    -- 0a0d2a0208022a071205696d673a31 -> worker_replicas { common { replicas: 2 image: "img:1" } }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, image = "img:1" } },
      kfjob.decode("tensorflow", msg(1, msg(5, int(1, 2)), msg(5, msg(2, "img:1")))))
  end)

  it("common in two occurrences of the replica spec", function()
    -- 0a062a04080220010a092a071205696d673a31 -> worker_replicas { common { replicas: 2
    --   image: "img:1" restart_policy: RESTART_POLICY_ON_FAILURE } }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, image = "img:1", restart_policy = "OnFailure" } },
      kfjob.decode("tensorflow", msg(1, msg(5, int(1, 2), int(4, 1))) .. msg(1, msg(5, msg(2, "img:1")))))
  end)

  it("resources in two occurrences of the replica spec", function()
    -- 0a0b08021a070a0508011201310a0b1a09120708031203324769 -> worker_replicas { replicas: 2
    --   resources { requests { name: CPU value: "1" } limits { name: MEMORY value: "2Gi" } } }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, requests = { cpu = "1" }, limits = { mem = "2Gi" } } },
      kfjob.decode("tensorflow", msg(1, int(1, 2), msg(3, msg(1, int(1, 1), msg(2, "1"))))
        .. msg(1, msg(3, msg(2, int(1, 3), msg(2, "2Gi"))))))
  end)

  it("resources twice inside common, a scalar after them", function()
    -- 0a182a1608021a070a0508011201311a07120508021201340802 -> worker_replicas { common { replicas: 2
    --   resources { requests { name: CPU value: "1" } limits { name: GPU value: "4" } } } }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, requests = { cpu = "1" }, limits = { gpu = "4" } } },
      kfjob.decode("tensorflow", msg(1, msg(5, int(1, 2), msg(3, msg(1, int(1, 1), msg(2, "1"))),
        msg(3, msg(2, int(1, 2), msg(2, "4"))), int(1, 2)))))
    -- 0a0d2a0b08021a070a0508011201310a0d2a0b1a07120508021201342002 (common, then resources in it,
    -- in two occurrences of the replica spec) -> worker_replicas { common { replicas: 2 resources {
    --   requests { name: CPU value: "1" } limits { name: GPU value: "4" } } restart_policy: RESTART_POLICY_ALWAYS } }
    assert.equal(kfjob.TFJob { worker = { replicas = 2, requests = { cpu = "1" }, limits = { gpu = "4" },
      restart_policy = "Always" } },
      kfjob.decode("tensorflow", msg(1, msg(5, int(1, 2), msg(3, msg(1, int(1, 1), msg(2, "1")))))
        .. msg(1, msg(5, msg(3, msg(2, int(1, 2), msg(2, "4"))), int(4, 2)))))
  end)

  it("run_policy twice", function()
    -- 0a02080122040802103c22022003 -> worker_replicas { replicas: 1 } run_policy {
    --   clean_pod_policy: CLEANPOD_POLICY_ALL ttl_seconds_after_finished: 60 backoff_limit: 3 }
    assert.equal(kfjob.TFJob { worker = { replicas = 1 },
      run_policy = { clean_pod_policy = "all", ttl_seconds_after_finished = 60, backoff_limit = 3 } },
      kfjob.decode("tensorflow", msg(1, int(1, 1)) .. msg(4, int(1, 2), int(2, 60)) .. msg(4, int(4, 3))))
  end)

  it("a command list across two occurrences (joined)", function()
    -- 0a0508022a016120010a062a01622a0163 -> worker_replicas { replicas: 2 command: "a"
    --   command: "b" command: "c" } slots: 1
    assert.equal(kfjob.MPIJob { worker = { replicas = 2, command = { "a", "b", "c" } }, slots = 1 },
      kfjob.decode("mpi", msg(1, int(1, 2), msg(5, "a")) .. int(4, 1) .. msg(1, msg(5, "b"), msg(5, "c"))))
  end)

  it("a scalar in both occurrences: the last one wins", function()
    -- 0a0b08021203613a312a0208040a091203623a322a020803 -> worker_replicas { replicas: 2
    --   image: "b:2" common { replicas: 3 } }  (kfjob reads common over the flat fields)
    assert.equal(kfjob.TFJob { worker = { replicas = 3 } },
      kfjob.decode("tensorflow", msg(1, int(1, 2), msg(2, "a:1"), msg(5, int(1, 4)))
        .. msg(1, msg(2, "b:2"), msg(5, int(1, 3)))))
    -- 0a0708021203613a310a051203623a32 (same shape without common) -> replicas: 2 image: "b:2"
    assert.equal(kfjob.TFJob { worker = { replicas = 2, image = "b:2" } },
      kfjob.decode("tensorflow", msg(1, int(1, 2), msg(2, "a:1")) .. msg(1, msg(2, "b:2"))))
  end)

  it("elastic_config twice", function()
    -- 0a02080322080a04633130641002220418032004 -> worker_replicas { replicas: 3 } elastic_config {
    --   rdzv_backend: "c10d" min_replicas: 2 max_replicas: 3 nproc_per_node: 4 }
    -- (rdzv_backend c10d: the default, which the message cannot tell given)
    local j = kfjob.decode("pytorch", msg(1, int(1, 3)) .. msg(4, msg(1, "c10d"), int(2, 2)) .. msg(4, int(3, 3), int(4, 4)))
    assert.equal(kfjob.Elastic { nnodes = "2:3", nproc_per_node = 4 }, j)
    assert.equal("c10d", j.rdzv_backend)
  end)
end)

-- The same in the TaskTemplate / TaskSpec envelopes and in the custom
-- Struct inside them (google.protobuf.Struct: a map of Values, Value a
-- oneof).  Expected values again python3-protobuf's (json_format of the
-- custom Struct quoted).
describe("decode_task_template / decode_task_spec merge a sub-message given twice", function()
  local DOUBLE = { [2] = "\0\0\0\0\0\0\0@", [3] = "\0\0\0\0\0\0\8@", [4] = "\0\0\0\0\0\0\16@" }
  local function num(v) return "\17" .. DOUBLE[v] end                          -- Value.number_value
  local function entry(k, ...)                                                  -- Struct.fields entry,
    local vals = {}                                                             -- its Value given once
    for i, v in ipairs({ ... }) do vals[i] = msg(2, v) end                      -- per argument
    return msg(1, msg(1, k), table.unpack(vals))
  end
  local function sv(...) return msg(5, ...) end                                 -- Value.struct_value
  local BASE = msg(2, "tensorflow") .. int(7, 1)                                -- type, task_type_version 1

  it("a Value given twice in one map entry (struct_value both times): merged", function()
    -- ...2a410a3f0a0e776f726b65725265706c69636173... -> {"workerReplicas": {"replicas": 2.0, "image": "x:1"}}
    local j = assert(kfjob.decode_task_template(BASE .. msg(5, entry("workerReplicas",
      sv(entry("replicas", num(2))), sv(entry("image", msg(3, "x:1")))))))
    assert.same({ 2, "x:1" }, { j.worker.replicas, j.worker.image })
  end)

  it("a oneof member given again after another member: merged only from there", function()
    -- struct_value{image "x:1"}, string_value "s", struct_value{replicas 2}, struct_value{replicas 4}
    -- -> {"workerReplicas": {"replicas": 4.0}} (the first struct_value cleared by string_value)
    local j = assert(kfjob.decode_task_template(BASE .. msg(5, entry("workerReplicas",
      sv(entry("image", msg(3, "x:1"))), msg(3, "s"), sv(entry("replicas", num(2))),
      sv(entry("replicas", num(4)))))))
    assert.same({ 4 }, { j.worker.replicas, j.worker.image })
    -- struct_value{replicas 2}, string_value "s", struct_value{image "x:1"}, struct_value{replicas 4}
    -- -> {"workerReplicas": {"replicas": 4.0, "image": "x:1"}}
    j = assert(kfjob.decode_task_template(BASE .. msg(5, entry("workerReplicas",
      sv(entry("replicas", num(2))), msg(3, "s"), sv(entry("image", msg(3, "x:1"))),
      sv(entry("replicas", num(4)))))))
    assert.same({ 4, "x:1" }, { j.worker.replicas, j.worker.image })
  end)

  it("custom twice with the same key: the last map entry wins (not merged)", function()
    -- -> {"workerReplicas": {"replicas": 3.0}}
    local first = msg(5, entry("workerReplicas", sv(entry("replicas", num(2)), entry("image", msg(3, "x:1")))))
    local second = msg(5, entry("workerReplicas", sv(entry("replicas", num(3)))))
    local j = assert(kfjob.decode_task_template(BASE .. first .. second))
    assert.same({ 3 }, { j.worker.replicas, j.worker.image })
  end)

  it("a TaskSpec's template given twice", function()
    -- 0a0e120a74656e736f72666c6f7738010a2f2a2d... -> template { type: "tensorflow"
    --   task_type_version: 1 custom {"workerReplicas": {"replicas": 2.0}} }
    local j = assert(kfjob.decode_task_spec(msg(1, BASE)
      .. msg(1, msg(5, entry("workerReplicas", sv(entry("replicas", num(2))))))))
    assert.equal(2, j.worker.replicas)
  end)
end)
