/**
 * Unused code, for `npm run lint`: exports nothing imports, source files nothing reaches, dependencies
 * nothing imports. Reads every TypeScript file with Babel's parser (the project's TypeScript has no
 * JavaScript compiler API). Exits 1 and lists the findings when there are any.
 *
 * An export counts as used when another module imports it by name (or through `import *` / `export *`),
 * or when its own file uses it. Entries (the runtime entries, scripts, benchmarks, tests, configs) are
 * the roots for reachability.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCAN = ['src', 'test', 'scripts', 'bench'];
const GENERATED = /^src\/generated\//;
const ENTRIES = [/^src\/(worker|node)\.ts$/, /^scripts\//, /^bench\//, /^test\//, /^[^/]+\.ts$/];
/** Dependencies used outside TypeScript imports: by configs, the CLI or other packages. */
const USED_ELSEWHERE = new Set(['@babel/core', '@babel/preset-typescript', 'dependency-cruiser', 'drizzle-kit', 'miniflare', 'tsx', 'typescript', 'wrangler', '@types/node']);

interface ModuleInfo {
  exports: Set<string>;
  /** Resolved module -> names imported from it ('*' for a namespace or re-export of everything). */
  imports: Map<string, Set<string>>;
  packages: Set<string>;
  /** Identifiers referenced in the file other than at their declaration. */
  localUses: Map<string, number>;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === 'node_modules' || n.startsWith('.')) return [];
    return statSync(p).isDirectory() ? walk(p) : /\.(ts|mts)$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
  return undefined;
}

function packageName(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('node:') || spec.startsWith('cloudflare:')) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function analyse(file: string): ModuleInfo {
  const text = readFileSync(file, 'utf8');
  const ast = parse(text, { sourceType: 'module', plugins: ['typescript', 'importAttributes'] });
  const info: ModuleInfo = { exports: new Set(), imports: new Map(), packages: new Set(), localUses: new Map() };
  const addImport = (spec: string, names: string[]) => {
    const pkg = packageName(spec);
    if (pkg) info.packages.add(pkg);
    const target = resolveImport(file, spec);
    if (!target) return;
    const set = info.imports.get(target) ?? new Set<string>();
    for (const n of names) set.add(n);
    info.imports.set(target, set);
  };
  for (const node of ast.program.body) {
    if (node.type === 'ImportDeclaration') {
      addImport(
        node.source.value,
        node.specifiers.map((s) => (s.type === 'ImportSpecifier' ? (s.imported.type === 'Identifier' ? s.imported.name : s.imported.value) : s.type === 'ImportDefaultSpecifier' ? 'default' : '*')),
      );
    } else if (node.type === 'ExportAllDeclaration') {
      addImport(node.source.value, ['*']);
    } else if (node.type === 'ExportNamedDeclaration') {
      if (node.source) {
        addImport(
          node.source.value,
          node.specifiers.map((s) => (s.type === 'ExportSpecifier' ? s.local.name : '*')),
        );
      }
      for (const s of node.specifiers) if (s.type === 'ExportSpecifier') info.exports.add(s.exported.type === 'Identifier' ? s.exported.name : s.exported.value);
      const d = node.declaration;
      if (d && 'id' in d && d.id && d.id.type === 'Identifier') info.exports.add(d.id.name);
      if (d?.type === 'VariableDeclaration') for (const v of d.declarations) if (v.id.type === 'Identifier') info.exports.add(v.id.name);
    } else if (node.type === 'ExportDefaultDeclaration') {
      info.exports.add('default');
    }
  }
  // Dynamic imports and import.meta.glob patterns (collected suites) count as namespace imports.
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) addImport(m[1], ['*']);
  for (const m of text.matchAll(/import\.meta\.glob[^(]*\(\s*['"]([^'"]+)['"]/g)) {
    const pattern = new RegExp(`^${resolve(dirname(file), m[1]).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    for (const f of allFiles) if (pattern.test(f)) addImport(`./${relative(dirname(file), f).replace(/\.ts$/, '.js')}`, ['*']);
  }
  for (const m of text.matchAll(/\b[A-Za-z_$][\w$]*\b/g)) info.localUses.set(m[0], (info.localUses.get(m[0]) ?? 0) + 1);
  return info;
}

const allFiles = SCAN.flatMap((d) => walk(join(root, d))).concat(readdirSync(root).filter((n) => /\.ts$/.test(n) && !n.endsWith('.d.ts')).map((n) => join(root, n)));
const modules = new Map(allFiles.map((f) => [f, analyse(f)]));
const rel = (f: string) => relative(root, f);
const findings: string[] = [];

// Exports nobody imports and the file itself does not use.
const importedNames = new Map<string, Set<string>>();
for (const info of modules.values()) {
  for (const [target, names] of info.imports) {
    const set = importedNames.get(target) ?? new Set<string>();
    for (const n of names) set.add(n);
    importedNames.set(target, set);
  }
}
for (const [file, info] of modules) {
  const r = rel(file);
  if (GENERATED.test(r) || ENTRIES.some((e) => e.test(r))) continue;
  const used = importedNames.get(file) ?? new Set<string>();
  if (used.has('*')) continue;
  for (const name of info.exports) {
    if (used.has(name)) continue;
    if ((info.localUses.get(name) ?? 0) > 1) continue;
    findings.push(`unused export: ${name} in ${r}`);
  }
}

// Files no entry reaches.
const reached = new Set<string>();
const stack = [...modules.keys()].filter((f) => ENTRIES.some((e) => e.test(rel(f))));
while (stack.length) {
  const f = stack.pop()!;
  if (reached.has(f)) continue;
  reached.add(f);
  for (const target of modules.get(f)?.imports.keys() ?? []) stack.push(target);
}
for (const f of modules.keys()) if (!reached.has(f) && !GENERATED.test(rel(f))) findings.push(`unreachable file: ${rel(f)}`);

// Dependencies nothing imports.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const importedPackages = new Set([...modules.values()].flatMap((m) => [...m.packages]));
for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]) {
  // `@types/x` is used where `x` is imported (`@types/scope__name` for `@scope/name`).
  const typed = dep.startsWith('@types/') ? dep.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2') : undefined;
  if (!importedPackages.has(dep) && !(typed && importedPackages.has(typed)) && !USED_ELSEWHERE.has(dep)) findings.push(`unused dependency: ${dep}`);
}
// Packages imported but not declared.
for (const p of importedPackages) {
  if (!(p in (pkg.dependencies ?? {})) && !(p in (pkg.devDependencies ?? {}))) findings.push(`undeclared dependency: ${p}`);
}

if (findings.length > 0) {
  console.error(findings.sort().join('\n'));
  console.error(`\n${findings.length} unused-code finding(s)`);
  process.exit(1);
}
console.log(`no unused exports, files or dependencies (${modules.size} files)`);
