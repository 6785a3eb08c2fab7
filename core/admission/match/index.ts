// Core: admission matching shared by webhooks (worker/admission-webhooks*.ts) and admission policies: see README.md.

export * from './rules';
export * from './attributes';
export * from './equivalents';
export * from './selectors';
export * from './matcher';
export * from './conditions';
export * from './review-request';
