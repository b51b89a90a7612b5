/**
 * `sam local invoke` on the synthesized template gives a function only the environment variables
 * its template declares (`--env-vars` overrides declared ones and ignores the rest). Synthesized
 * with `-c samLocal=true`, every function also declares these, empty, so that an env file can
 * point it at the emulators of a running `npm start` (`npm run --silent sam-env`,
 * docs/local-development.md "sam local invoke"). A template synthesized that way is for `sam local` only, never deployed.
 */
import type { FunctionAccess } from '../../functions/routes';

export const SAM_LOCAL_CONTEXT_KEY = 'samLocal';

export const SAM_LOCAL_VARIABLES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_ENDPOINT_URL_KMS',
  // The image bucket's, for the functions that read or write images.
  'AWS_ENDPOINT_URL_S3',
  'INKPRESS_LOCAL_MODE',
  // The language model's, for the function that reads its secret.
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
] as const;

/** The declarations a function's environment starts with when synthesized for `sam local`. */
export function samLocalDeclarations(access: FunctionAccess): Record<string, string> {
  const declared = (name: string) => {
    if (name.startsWith('OPENAI_')) return Boolean(access.readsModelSecret);
    if (name === 'AWS_ENDPOINT_URL_S3') return Boolean(access.imageBucket);
    return true;
  };
  return Object.fromEntries(SAM_LOCAL_VARIABLES.filter(declared).map((name) => [name, '']));
}
