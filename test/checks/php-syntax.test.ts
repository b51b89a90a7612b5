/**
 * Every PHP file of the WordPress plugin passes `php -l` (PHP's own syntax check). Skipped where
 * PHP is not installed, except in CI (`CI=true`, set by .ci/run), where PHP is required.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PLUGIN_DIR = path.join(__dirname, '..', '..', 'wordpress-plugin');
const phpAvailable = spawnSync('php', ['--version']).status === 0;
const describeWithPhp = phpAvailable || process.env.CI ? describe : describe.skip;

function phpFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return phpFiles(full);
    return entry.name.endsWith('.php') ? [full] : [];
  });
}

const lint = (file: string) => spawnSync('php', ['-l', file], { encoding: 'utf8' });

describeWithPhp('php -l', () => {
  const files = phpFiles(PLUGIN_DIR);

  it('finds the plugin files', () => {
    expect(files.map((file) => path.relative(PLUGIN_DIR, file))).toContain(
      path.join('inkpress-connector', 'inkpress-connector.php'),
    );
  });

  it.each(files.map((file) => [path.relative(PLUGIN_DIR, file), file]))(
    '%s has no syntax errors',
    (_name, file) => {
      const result = lint(file);
      expect(`${result.stdout}${result.stderr}`.trim()).toMatch(/^No syntax errors detected/);
      expect(result.status).toBe(0);
    },
  );

  it('fails on a file with a syntax error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'php-lint-'));
    try {
      const broken = path.join(dir, 'broken.php');
      writeFileSync(broken, '<?php\nfunction ( {\n');
      expect(lint(broken).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
