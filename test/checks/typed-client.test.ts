/**
 * The typed client in clients/typescript is generated from the OpenAPI document: its committed
 * files must be what `npm run client:generate` writes now, so the client never drifts from the
 * API. (The generator runs under tsx: openapi-typescript's dependencies are ES modules.)
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

describe('the typed client', () => {
  it('is generated from the current OpenAPI document (run npm run client:generate)', () => {
    const result = spawnSync(
      path.join(root, 'node_modules', '.bin', 'tsx'),
      [path.join(root, 'clients', 'typescript', 'generate.ts'), '--check'],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    expect({ status: result.status, stderr: result.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  }, 70_000);

  it('shows example.ts in its README as it is (the integration tests run the file)', () => {
    const readme = readFileSync(path.join(root, 'clients', 'typescript', 'README.md'), 'utf8');
    const example = readFileSync(path.join(root, 'clients', 'typescript', 'example.ts'), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\`\n`);
  });
});
