package units

// SchemaPatch is the JSON-schema property to add to the `properties` of a
// unit's `info` object in the sylva-units chart's values.schema.json, so
// that the chart accepts info.transitional-unit (the schema forbids unknown
// keys under info).
const SchemaPatch = `{
  "transitional-unit": {
    "type": "string",
    "pattern": "^from-[0-9]+\\.[0-9]+$",
    "description": "Marks a transitional unit: from-X.Y means the unit is needed while upgrades from Sylva X.Y are supported. sylva-planner prune-audit reports when it can be deleted."
  }
}
`
