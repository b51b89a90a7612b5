/**
 * Stands in for `@aws-sdk/credential-provider-node` in the functions' bundles (`ESBUILD_ALIASES`).
 * Lambda gives a function its role's credentials in the environment (`AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), as `sam local invoke` does, so the bundles need
 * only the environment provider, not the SDK's default chain (SSO, profiles, processes, web
 * identity, container and instance metadata, with their STS and SSO clients): -130 KB that every
 * cold start would compile. Missing variables fail with the SDK's own error naming them.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
