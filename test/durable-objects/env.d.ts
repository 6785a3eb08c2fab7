// Types for the bindings the Workers test pool provides (from wrangler.toml + vitest.workers.config.mts).
import type { Bindings } from '../../worker/env';

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      EVENT_RETENTION_COUNT: string;
    }
  }
}
export {};
