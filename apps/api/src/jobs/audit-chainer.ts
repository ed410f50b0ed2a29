import { chainBatch, ChainWatermark, organizationsToChain } from "../core/jobs/audit-chain";
import type { Services } from "../core/context";

export interface AuditChainerOptions {
  intervalMs?: number;
  batchSize?: number;
  /** Chain past writing transactions open longer than this (default: config AUDIT_MAX_UNCHAINED_SECONDS). */
  maxLagMs?: number;
}

/**
 * Links new audit entries into their organization's hash chain, every `intervalMs`, off the request
 * path. Safe in every API process: an organization is chained by one process at a time
 * (pg_try_advisory_xact_lock, skipped when taken), and the state lives in the database. A writing
 * transaction left open elsewhere holds chaining back for at most about `maxLagMs` (ChainWatermark).
 */
export class AuditChainer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly watermark: ChainWatermark;

  constructor(
    private readonly services: Services,
    private readonly options: AuditChainerOptions = {},
  ) {
    this.watermark = new ChainWatermark(options.maxLagMs ?? services.config.auditMaxUnchainedSeconds * 1000);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass over every organization with entries to chain; returns how many entries it chained. */
  async runOnce(): Promise<number> {
    const { db } = this.services;
    const batchSize = this.options.batchSize ?? 500;
    const watermark = await this.watermark.advance(db);
    let chained = 0;
    for (const organizationId of await organizationsToChain(db, watermark.seq)) {
      for (;;) {
        const n = await chainBatch(db, organizationId, watermark, { batchSize });
        chained += n;
        if (n < batchSize || this.stopped) break;
      }
    }
    return chained;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .then(() => undefined)
        .catch((error) => this.services.log.error({ err: error }, "audit chaining pass failed"))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.schedule(this.options.intervalMs ?? 1000);
        });
    }, delayMs);
    this.timer.unref?.();
  }
}
