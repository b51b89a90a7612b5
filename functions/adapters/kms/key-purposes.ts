/**
 * The `purpose` in the encryption context of a webhook signing secret. Site passwords carry no
 * `purpose`, so the stack can grant a function the key for webhook secrets only (a condition on
 * this value) without letting it decrypt a site password.
 */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-signing-secret';
