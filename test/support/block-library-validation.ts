/**
 * Block markup checked by the newest block library (test/support/validate-blocks.cjs, in a
 * child process): every block with whether the parser accepted it and whether its markup is the
 * block's current save (no deprecation needed).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ValidatedBlock {
  name: string;
  /** The parser accepted the markup (as it is, or through a deprecation). */
  valid: boolean;
  /** The markup is what the block's current save produces: no deprecation was needed. */
  current: boolean;
  issues: string[];
  inner: ValidatedBlock[];
}

const SCRIPT = path.join(__dirname, 'validate-blocks.cjs');

/** Parses and validates post content with `@wordpress/blocks` and `@wordpress/block-library`. */
export function validateWithBlockLibrary(content: string): Promise<ValidatedBlock[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`validate-blocks.cjs exited ${code}:\n${stderr.slice(-4000)}`));
        return;
      }
      resolve((JSON.parse(stdout) as { blocks: ValidatedBlock[] }).blocks);
    });
    child.stdin.end(content);
  });
}

/** Every block, inner blocks after their parent. */
export function allValidatedBlocks(blocks: ValidatedBlock[]): ValidatedBlock[] {
  return blocks.flatMap((block) => [block, ...allValidatedBlocks(block.inner)]);
}
