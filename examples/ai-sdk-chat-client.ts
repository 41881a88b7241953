/**
 * A chat client without a browser: the AI SDK's own `AbstractChat` (what `useChat` of `@ai-sdk/react`
 * wraps) with its `DefaultChatTransport`, whose requests go to a route handler in the same process
 * instead of over the network. `sendMessage`, `sendMessage({ messageId })` and `regenerate()` send
 * exactly what they send from a browser (`trigger`, `messageId`, the messages).
 */
import { AbstractChat, DefaultChatTransport, type ChatState, type ChatStatus, type UIMessage } from 'ai'

/** A chat's state in plain arrays (React keeps it in hooks; the chat logic is the same). */
class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready'
  error: Error | undefined = undefined
  constructor(public messages: UIMessage[]) {}
  pushMessage = (message: UIMessage): void => {
    this.messages = [...this.messages, message]
  }
  popMessage = (): void => {
    this.messages = this.messages.slice(0, -1)
  }
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m))
  }
  snapshot = <T>(thing: T): T => structuredClone(thing)
}

/** A route handler: what the transport's requests reach. */
export type Handler = (req: Request) => Promise<Response>

/** `useChat` without React: the SDK's chat logic, its requests handled by `handler`. */
export class HeadlessChat extends AbstractChat<UIMessage> {
  /**
   * @param options - the chat id, the messages it starts with (a page loaded from the ledger), the route
   */
  constructor(options: { id: string; messages?: UIMessage[]; handler: Handler }) {
    super({
      id: options.id,
      state: new ArrayState(options.messages ?? []),
      transport: new DefaultChatTransport({
        api: 'http://localhost/api/chat',
        fetch: (input, init) => options.handler(new Request(input, init)),
      }),
    })
  }
}
