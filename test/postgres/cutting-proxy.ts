/**
 * A TCP proxy in front of the test server that cuts one connection at the worst moment for a write: after
 * the server committed the store's write statement, before the store reads the answer — what a network
 * failure after the commit looks like to the store.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'

/** The proxy: `listen()`, point the store at its port, `arm()` before the write to cut. */
export class CuttingProxy {
  readonly server: Server
  private armed = false
  private before: (() => Promise<void>) | undefined
  /** Connections cut so far. */
  cuts = 0

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => {
      this.pipe(client)
    })
  }

  async listen(): Promise<number> {
    return new Promise((resolve) => {
      this.server.listen(0, '127.0.0.1', () => {
        const address = this.server.address()
        resolve(typeof address === 'object' && address !== null ? address.port : 0)
      })
    })
  }

  /**
   * Cuts the next connection that runs the store's write statement, once the server has answered it.
   *
   * @param before - awaited before the cut, the answer held meanwhile (e.g. the database refusing logins
   *   from then on, so the store's next connection meets the refusal)
   */
  arm(before?: () => Promise<void>): void {
    this.armed = true
    this.before = before
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host)
    let writing = false
    let cutting = false
    let answer = Buffer.alloc(0)
    client.on('data', (data: Buffer) => {
      if (this.armed && data.includes('context_ledger_flush')) {
        this.armed = false
        writing = true
      }
      upstream.write(data)
    })
    upstream.on('data', (data: Buffer) => {
      if (!writing) {
        client.write(data)
        return
      }
      // ReadyForQuery ('Z', length 5) ends the statement's answer: it has committed.
      answer = Buffer.concat([answer, data])
      if (!cutting && answer.includes(Buffer.from([0x5a, 0, 0, 0, 5]))) {
        // Nothing more reaches the client: it never hears the answer.
        cutting = true
        const before = this.before ?? (() => Promise.resolve())
        this.before = undefined
        void before().then(() => {
          this.cuts++
          client.destroy()
          upstream.destroy()
        })
      }
    })
    const close = (): void => {
      client.destroy()
      upstream.destroy()
    }
    client.on('error', close)
    upstream.on('error', close)
    client.on('close', close)
    upstream.on('close', close)
  }

  async close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => {
        resolve()
      })
    })
  }
}
