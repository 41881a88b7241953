/**
 * `projectKeyOf(dir)` is the project key the SDK itself derives from a folder: asked through the SDK's
 * own `listSessions({ dir, sessionStore })`, which hands the store the key of `dir`, for a short path, a
 * path with odd characters, a symlinked folder (the real path counts) and a path past 200 characters
 * (cut and hashed).
 */
import { mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { listSessions, type SessionStore } from '@anthropic-ai/claude-agent-sdk'
import { afterAll, describe, expect, it } from 'vitest'
import { projectKeyOf } from '../../../src/adapters/claude-agent-sdk/index.js'
import { tempDir } from '../../helpers/temp-store.js'

const temp = tempDir()
afterAll(() => {
  temp.cleanup()
})

/** The project key the SDK hands a store for `dir`. */
async function sdkKeyOf(dir: string): Promise<string> {
  const asked: string[] = []
  const spy: SessionStore = {
    append: () => Promise.resolve(),
    load: () => Promise.resolve(null),
    listSessions: (projectKey) => {
      asked.push(projectKey)
      return Promise.resolve([])
    },
  }
  await listSessions({ dir, sessionStore: spy })
  expect(asked).toHaveLength(1)
  return asked[0] ?? ''
}

describe('projectKeyOf', () => {
  const short = join(temp.path, 'app')
  const odd = join(temp.path, 'my app (v2)', 'ünï-cödé.d')
  const long = join(temp.path, ...Array.from({ length: 12 }, (_, i) => `folder-number-${i}-of-a-deep-tree`))
  const link = join(temp.path, 'link-to-app')
  mkdirSync(short)
  mkdirSync(odd, { recursive: true })
  mkdirSync(long, { recursive: true })
  symlinkSync(short, link)

  it.each([
    ['a short path', short],
    ['odd characters', odd],
    ['a symlink (its real path)', link],
    ['a path past 200 characters (cut and hashed)', long],
  ])('is the SDK’s key for %s', async (_what, dir) => {
    const key = await sdkKeyOf(dir)
    expect(projectKeyOf(dir)).toBe(key)
  })

  it('cuts a long path to 200 characters and a hash, and defaults to the working folder', () => {
    expect(long.length).toBeGreaterThan(200)
    expect(projectKeyOf(long)).toMatch(/^.{200}-[0-9a-z]+$/u)
    expect(projectKeyOf()).toBe(projectKeyOf(process.cwd()))
  })
})
