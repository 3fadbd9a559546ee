-- kfjob.schema (placeholder until written)
return function() error("kfjob.schema: not built yet") end
