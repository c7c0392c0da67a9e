// Written by `npm run schemas:actions` (scripts/action-json-schemas.ts) from src/env/action-schemas.ts: do not edit.
/**
 * The JSON Schemas of the actions, input form (fields with a default are not required), exactly as
 * zod's toJSONSchema gives them, so that serving them loads no zod (docs/budgets.md, "Memory touched").
 */
import type { Op } from './types.js';

/** Per op, in the order tools are listed. */
export const OP_JSON_SCHEMAS: Readonly<Record<Op, Record<string, unknown>>> = {
  "look": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "look"
      },
      "heading_deg": {
        "default": 0,
        "description": "Compass heading to face, degrees clockwise from true north (0 north, 90 east).",
        "type": "number",
        "minimum": -3600,
        "maximum": 3600
      },
      "pitch_deg": {
        "default": 0,
        "description": "Tilt in degrees; positive looks up.",
        "type": "number",
        "minimum": -90,
        "maximum": 90
      },
      "fov_deg": {
        "default": 90,
        "description": "Horizontal field of view in degrees; smaller zooms in.",
        "type": "number",
        "minimum": 10,
        "maximum": 120
      }
    },
    "required": [
      "op"
    ]
  },
  "pan": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "pan"
      },
      "delta_deg": {
        "type": "number",
        "minimum": -3600,
        "maximum": 3600,
        "description": "Degrees to turn; positive turns right (clockwise)."
      }
    },
    "required": [
      "op",
      "delta_deg"
    ]
  },
  "zoom": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "zoom"
      },
      "fov_deg": {
        "type": "number",
        "minimum": 10,
        "maximum": 120,
        "description": "Horizontal field of view in degrees; smaller zooms in."
      }
    },
    "required": [
      "op",
      "fov_deg"
    ]
  },
  "move": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "move"
      },
      "direction": {
        "default": "forward",
        "description": "Along the captured road: forward or backward.",
        "type": "string",
        "enum": [
          "forward",
          "backward"
        ]
      },
      "meters": {
        "default": 10,
        "description": "How far to walk, in metres.",
        "type": "number",
        "exclusiveMinimum": 0,
        "maximum": 500
      }
    },
    "required": [
      "op"
    ]
  },
  "pin": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "pin"
      },
      "lat": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      },
      "label": {
        "description": "Your own note for the pin.",
        "type": "string",
        "maxLength": 80
      },
      "span_deg": {
        "default": 7,
        "description": "Half-width of the map in degrees; below about 4 the map shows roads and towns.",
        "type": "number",
        "exclusiveMinimum": 0.02,
        "maximum": 180
      }
    },
    "required": [
      "op",
      "lat",
      "lon"
    ]
  },
  "view_map": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "view_map"
      },
      "lat": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      },
      "span_deg": {
        "default": 7,
        "description": "Half-width of the map in degrees.",
        "type": "number",
        "exclusiveMinimum": 0.05,
        "maximum": 180
      }
    },
    "required": [
      "op",
      "lat",
      "lon"
    ]
  },
  "measure": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "measure"
      },
      "lat_a": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon_a": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      },
      "lat_b": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon_b": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      }
    },
    "required": [
      "op",
      "lat_a",
      "lon_a",
      "lat_b",
      "lon_b"
    ]
  },
  "list_pins": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "list_pins"
      }
    },
    "required": [
      "op"
    ]
  },
  "clear_pins": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "clear_pins"
      }
    },
    "required": [
      "op"
    ]
  },
  "reverse_geocode": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "reverse_geocode"
      },
      "lat": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      }
    },
    "required": [
      "op",
      "lat",
      "lon"
    ]
  },
  "guess": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "op": {
        "type": "string",
        "const": "guess"
      },
      "lat": {
        "type": "number",
        "minimum": -90,
        "maximum": 90,
        "description": "Latitude in degrees, north positive."
      },
      "lon": {
        "type": "number",
        "minimum": -180,
        "maximum": 180,
        "description": "Longitude in degrees, east positive."
      },
      "response": {
        "description": "Free text holding the coordinates, used when lat/lon are not given.",
        "type": "string",
        "maxLength": 20000
      },
      "country": {
        "description": "Your country guess (not scored).",
        "type": "string",
        "maxLength": 100
      },
      "confidence": {
        "description": "How sure you are, as a fraction or a percentage (not scored).",
        "type": "number",
        "minimum": 0,
        "maximum": 100
      },
      "reasoning": {
        "description": "Why (not scored).",
        "type": "string",
        "maxLength": 20000
      }
    },
    "required": [
      "op"
    ]
  }
};
