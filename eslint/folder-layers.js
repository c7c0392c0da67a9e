/**
 * The lint rule that keeps src/'s folders in their layers (docs/architecture.md, "Layers"): a module
 * may import from its own folder or from a folder in a lower layer, never from one beside it or
 * above it. Folder-level import cycles therefore cannot come back. Static imports, dynamic
 * `import()` and re-exports are all checked; type-only imports too, since a type that lives above
 * pulls its folder's meaning up with it.
 */
import { dirname, relative, resolve, sep } from 'node:path';

/** Lowest first. Folders in one entry are one layer and may not import each other. */
export const LAYERS = [
  ['vendor'],
  ['core'],
  ['files.ts', 'paths.ts', 'processes.ts', 'parquet-bounds.ts', 'workers.ts', 'http.ts', 'heap.ts'],
  ['geo'],
  ['tasks'],
  ['store'],
  ['demo'],
  ['env'],
  ['audit', 'splits'],
  ['agent'],
  ['eval', 'train'],
  ['tui'],
  ['cli'],
];

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer])));

/** `src/<folder>/...` -> folder; `src/<file>.ts` -> the file's name; outside src/ -> null. */
function folderOf(file, srcDir) {
  const rel = relative(srcDir, file);
  if (rel.startsWith('..') || rel === '') return null;
  const [first, ...rest] = rel.split(sep);
  return rest.length > 0 ? first : first.replace(/\.(js|tsx?)$/, '.ts');
}

export const folderLayers = {
  meta: {
    type: 'problem',
    docs: { description: "imports only from the module's own folder or a lower layer of src/" },
    schema: [],
    messages: {
      unknown: "src/{{folder}} is in no layer: add it to LAYERS in eslint/folder-layers.js (and docs/architecture.md, Layers)",
      upward: "src/{{from}} (layer {{fromLayer}}) may not import src/{{to}} (layer {{toLayer}}): move what both need down a layer (docs/architecture.md, Layers)",
    },
  },
  create(context) {
    const srcDir = resolve(context.cwd, 'src');
    const from = folderOf(context.filename, srcDir);
    if (from === null) return {};
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = folderOf(resolve(dirname(context.filename), source.value), srcDir);
      if (to === null || to === from) return;
      for (const folder of [from, to]) {
        if (!layerOf.has(folder)) return context.report({ node, messageId: 'unknown', data: { folder } });
      }
      const fromLayer = layerOf.get(from);
      const toLayer = layerOf.get(to);
      if (toLayer >= fromLayer) context.report({ node, messageId: 'upward', data: { from, to, fromLayer, toLayer } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default { rules: { 'folder-layers': folderLayers } };
