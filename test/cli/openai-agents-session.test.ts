/**
 * The CLI reads an `openai-agents` session: `history` and `window` print each item readably (text, calls
 * with their input, results with their output, reasoning, a withdrawal marker as what it withdrew).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openContextStore } from '../../src/index.js'
import { withdrawalMarker } from '../../src/formats/openai-agents/index.js'
import { cli } from './support.js'

const dir = mkdtempSync(join(tmpdir(), 'oa-cli-'))
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('the CLI on an openai-agents session', () => {
  it('prints history and window readably', async () => {
    const path = join(dir, 'ledger.db')
    const store = openContextStore(path)
    const items = [
      { role: 'user', content: 'What is the weather in Paris?' },
      { type: 'reasoning', content: [{ type: 'input_text', text: 'I should look it up.' }] },
      { type: 'function_call', callId: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      {
        type: 'function_call_result',
        callId: 'call_1',
        name: 'weather',
        status: 'completed',
        output: 'sunny, 24°C',
      },
      {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Sunny and warm.' }],
      },
      withdrawalMarker({ seqs: [[4, 5]] }),
    ]
    store.append('trip', items, { format: 'openai-agents' })
    store.close()
    const history = await cli(['history', path, 'trip', '--full'])
    expect(history.code).toBe(0)
    for (const text of [
      'What is the weather in Paris?',
      'I should look it up.',
      'weather',
      'Paris',
      'sunny, 24°C',
      'Sunny and warm.',
      '[withdrew seqs 4]',
    ])
      expect(history.stdout).toContain(text)
    expect(history.stdout).not.toContain('[no text]')
    const window = await cli(['window', path, 'trip'])
    expect(window.code).toBe(0)
    expect(window.stdout).toContain('sunny, 24°C')
    expect(window.stdout).toContain('Sunny and warm.')
  })
})
