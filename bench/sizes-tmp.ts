import * as path from 'node:path';
import { build } from 'esbuild';
import { allFunctions } from '../functions/routes';
import { ESBUILD_SETTINGS, repositoryRoot } from '../lib/constructs/inkpress-function';

(async () => {
  for (const d of allFunctions) {
    const r = await build({
      entryPoints: [path.join(repositoryRoot, d.entry)],
      absWorkingDir: repositoryRoot,
      bundle: true,
      write: false,
      metafile: true,
      minify: true,
      platform: 'node',
      format: 'cjs',
      outfile: 'index.js',
      target: ESBUILD_SETTINGS.target,
      mainFields: ESBUILD_SETTINGS.mainFields,
      external: process.argv[2] === 'bundled' ? [] : ESBUILD_SETTINGS.externalModules,
      logLevel: 'silent',
    });
    const out = Object.values(r.metafile.outputs)[0]!;
    const pk: Record<string, number> = {};
    for (const [i, v] of Object.entries(out.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(i);
      const k = m?.[1] ?? (i.startsWith('functions') ? 'ours' : i);
      pk[k] = (pk[k] ?? 0) + v.bytesInOutput;
    }
    const top = Object.entries(pk)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k}:${Math.round(v / 1024)}`)
      .join(' ');
    console.log(d.name.padEnd(22), String(Math.round(out.bytes / 1024)).padStart(5), 'KB |', top);
  }
})();
