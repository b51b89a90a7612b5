import * as path from 'node:path';
import { build } from 'esbuild';
import { functionNamed } from '../functions/routes';
import { ESBUILD_SETTINGS, repositoryRoot } from '../lib/constructs/inkpress-function';

(async () => {
  const d = functionNamed(process.argv[2]!);
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
    external: ESBUILD_SETTINGS.externalModules,
    logLevel: 'silent',
  });
  const importers = new Map<string, string[]>();
  for (const [file, input] of Object.entries(r.metafile.inputs))
    for (const imp of input.imports) {
      if (!importers.has(imp.path)) importers.set(imp.path, []);
      importers.get(imp.path)!.push(file);
    }
  const targets = process.argv.slice(3);
  for (const t of targets) {
    const start = Object.keys(r.metafile.inputs).find((f) => f.includes(`node_modules/${t}/`));
    if (!start) {
      console.log(t, 'absent');
      continue;
    }
    // walk up to first own file chain
    let cur = start;
    const chain = [cur];
    const seen = new Set([cur]);
    while (true) {
      const up = (importers.get(cur) ?? []).find((f) => !seen.has(f));
      if (!up) break;
      chain.push(up);
      seen.add(up);
      cur = up;
      if (!up.includes('node_modules')) {
        const up2 = importers.get(up);
        if (!up2) break;
      }
    }
    console.log(t, ':', chain.filter((f) => !f.includes('node_modules')).join(' <- '));
  }
  const own = Object.entries(r.metafile.outputs)[0]![1].inputs;
  console.log(
    Object.entries(own)
      .filter(([f]) => !f.includes('node_modules'))
      .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
      .slice(0, 15)
      .map(([f, v]) => `${f} ${v.bytesInOutput}`)
      .join('\n'),
  );
})();
