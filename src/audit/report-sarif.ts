/**
 * The audit as SARIF 2.1.0, for code-scanning tools: one rule per finding kind, one result per
 * finding (level from its severity), located in its source file at the prompt's line with the prompt
 * id as a logical location; the finding id is the partial fingerprint, so a tool tracks a finding
 * across runs as the audit does. Baselined findings are results with an accepted suppression.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';
import { FINDING_KINDS } from './report.js';
import type { Baseline } from './baseline.js';
import type { Finding, FindingKind, Severity } from './types.js';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const FINGERPRINT_KEY = 'geolabFindingId/v1';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { high: 'error', medium: 'warning', low: 'note' };

const RULES: Record<FindingKind, { name: string; text: string; level: Severity }> = {
  identity: { name: 'IdentityKey', text: 'A task identity key (task id, sequence id, image id, contributor, checksum) reaches the model', level: 'high' },
  coordinates: { name: 'NearbyCoordinates', text: 'Coordinates near the truth that the agent did not supply itself', level: 'high' },
  country: { name: 'TrueCountry', text: 'The true country (name, alias, code or demonym) not explained by an agent point', level: 'high' },
  subregion: { name: 'TrueSubregion', text: "The true country's subregion not explained by an agent point", level: 'medium' },
  region: { name: 'TrueRegion', text: 'The admin-1 region (state, province...) of the truth not explained by an agent point', level: 'medium' },
  city: { name: 'NearbyCity', text: 'A city near the truth not explained by an agent point', level: 'high' },
  fingerprint: { name: 'CountryFingerprint', text: "A sign of the true country without its name: calling code, postcode format, vehicle code or official language", level: 'medium' },
  capture_metadata: { name: 'CaptureMetadata', text: "The frames' capture time beyond the month, a compass angle to many decimals, or the camera", level: 'medium' },
  image_metadata: { name: 'ImageMetadata', text: 'EXIF/XMP GPS or maker tags in an image sent to the model', level: 'high' },
  budget: { name: 'BudgetContradiction', text: 'Budget text that contradicts the real budget (a warning, not a leak)', level: 'low' },
  unknown_task: { name: 'UnknownTask', text: 'A prompt whose task cannot be found, so it could not be checked', level: 'medium' },
  template: { name: 'TemplateText', text: 'Text identical in the prompts of many tasks (an instruction template) that names a place, reported once', level: 'low' },
};

/** geolab's version, for the report's tool.driver. */
export function geolabVersion(): string {
  return (JSON.parse(readFileSync(resolve(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export function sarifReport(findings: readonly Finding[], options: { version: string; lineOf: (f: Finding) => number | undefined; baseline: Baseline }) {
  const rules = FINDING_KINDS.map((kind) => ({
    id: kind,
    name: RULES[kind].name,
    shortDescription: { text: RULES[kind].text },
    defaultConfiguration: { level: LEVEL[RULES[kind].level] },
  }));
  const results = findings.map((f) => {
    const line = options.lineOf(f);
    const uri = f.source.split('\\').join('/');
    const accepted = options.baseline.get(f.id);
    return {
      ruleId: f.kind,
      ruleIndex: FINDING_KINDS.indexOf(f.kind),
      level: LEVEL[f.severity],
      message: { text: `${f.evidence}${f.text ? `: ${JSON.stringify(f.text)}` : ''} (prompt ${f.prompt_id}${f.message >= 0 ? `, message ${f.message}` : ''})` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: isAbsolute(f.source) ? { uri: `file://${uri}` } : { uri, uriBaseId: '%SRCROOT%' },
            ...(line !== undefined ? { region: { startLine: line } } : {}),
          },
          logicalLocations: [{ name: f.prompt_id, kind: 'object', ...(f.episode_id ? { fullyQualifiedName: `${f.episode_id}/${f.prompt_id}` } : {}) }],
        },
      ],
      partialFingerprints: { [FINGERPRINT_KEY]: f.id },
      properties: { severity: f.severity, span: f.span, context: f.context, ...(f.turn !== undefined ? { turn: f.turn } : {}) },
      ...(f.baselined ? { suppressions: [{ kind: 'external', status: 'accepted', justification: accepted ? `${accepted.reason} (${accepted.by}, ${accepted.at})` : 'baselined' }] } : {}),
    };
  });
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'geolab audit', version: options.version, rules } }, results }],
  };
}
