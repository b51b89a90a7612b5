/**
 * Process-wide defaults of the local entry points. Imported first, before any module that reads
 * them at load time (the Powertools logger reads its level when it is created).
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
