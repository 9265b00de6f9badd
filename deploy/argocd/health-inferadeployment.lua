-- Argo CD health check for InferaDeployment (infera.io/v1alpha1), read from the conditions the
-- operator writes: Degraded=True -> Degraded, Ready=True -> Healthy, Progressing=True -> Progressing.
-- A status the operator has not written yet, or written for an older generation, is Progressing.
-- Lua 5.1 (Argo CD's gopher-lua); register it with argocd-cm.yaml beside this file.
local hs = {}

local function condition(conditions, type)
  for _, c in ipairs(conditions) do
    if c.type == type then
      return c
    end
  end
  return nil
end

local function describe(c, fallback)
  if c == nil then
    return fallback
  end
  local text = c.message
  if text == nil or text == "" then
    text = fallback
  end
  if c.reason ~= nil and c.reason ~= "" then
    return c.reason .. ": " .. text
  end
  return text
end

if obj.status == nil or obj.status.conditions == nil or #obj.status.conditions == 0 then
  hs.status = "Progressing"
  hs.message = "Waiting for infera-operator to report the status"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for infera-operator to observe generation " .. tostring(generation)
  return hs
end

local conditions = obj.status.conditions
local degraded = condition(conditions, "Degraded")
local ready = condition(conditions, "Ready")
local progressing = condition(conditions, "Progressing")

if degraded ~= nil and degraded.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(degraded, "Degraded")
  return hs
end

if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready, "Ready")
  local events = condition(conditions, "EventsFlowing")
  if events ~= nil and events.status == "False" then
    -- Serving, but routing without cache knowledge: say so without failing the app.
    hs.message = hs.message .. "; KV events not flowing (" .. describe(events, "EventsFlowing=False") .. ")"
  end
  return hs
end

if progressing ~= nil and progressing.status == "True" then
  hs.status = "Progressing"
  hs.message = describe(progressing, "Rolling out")
  return hs
end

hs.status = "Progressing"
hs.message = describe(ready, "Waiting for routers and workers to become ready")
return hs
