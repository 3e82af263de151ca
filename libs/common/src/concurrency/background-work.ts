/**
 * Work a service starts after its answer (a mail, a clean-up call) and shutdown must wait for: `track` it, and
 * `settled()` in onModuleDestroy resolves once every tracked piece has finished, failed or not.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work)).catch(() => undefined);
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
