// How a plugin shim reaches ctxmode's Python rules; shared by every plugin host.
//
// Two ways, same JSON in and out: one long-lived child (`ctxmode._bridge <platform>`)
// speaking JSON lines, `{"id", "event", ...payload}` in and `{"id", "answer"}` out, or one
// fast-form process per call (`ctxmode hook <platform> <event>`, payload on stdin, answer
// on stdout). `ctxmode.json`, written beside this file by `ctxmode setup`, holds both
// command lines. Whatever goes wrong (no Python, a crash, a timeout, bad JSON) the answer
// is null, meaning "let the host carry on untouched", and the failure is logged.
import { spawn, execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const RESPAWN_LIMIT = 3 // child crashes before falling back to one process per call

function readLaunch(url) {
  return JSON.parse(readFileSync(new URL('./ctxmode.json', url), 'utf8'))
}

// A shim's launch file (written beside it by `ctxmode setup`; `url` is the shim's
// import.meta.url) and its bridge, for the platform the launch file names
// (CTXMODE_BRIDGE=call: one process per call). Throws when there is no launch file.
export function openBridge(url) {
  const launch = readLaunch(url)
  const mode = process.env.CTXMODE_BRIDGE === 'call' ? 'call' : 'child'
  return { launch, bridge: createBridge(launch, launch.hook.at(-1), mode) }
}

function logPath(launch) {
  const root = process.env.CTXMODE_DIR
  return root ? join(root, 'logs', 'plugin-errors.log') : launch.log
}

export function createLogger(launch, platform) {
  return (message) => {
    const path = logPath(launch)
    if (!path) return
    try {
      mkdirSync(dirname(path), { recursive: true })
      appendFileSync(path, `[${new Date().toISOString()}] pid=${process.pid} ${platform}: ${message}\n`)
    } catch {}
  }
}

// A child's stdout as JSON messages, one a line (our bridge's protocol, and MCP's stdio
// transport): `push` each chunk as it comes, `reset` when the child is gone. A blank line
// is skipped; one that is not JSON goes to `bad` and is skipped.
export class JsonLines {
  constructor(message, bad) {
    this.message = message
    this.bad = bad
    this.buffer = ''
  }

  push(chunk) {
    this.buffer += chunk
    let newline
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim()
      this.buffer = this.buffer.slice(newline + 1)
      if (!line) continue
      let parsed
      try { parsed = JSON.parse(line) } catch { this.bad(line); continue }
      this.message(parsed)
    }
  }

  reset() { this.buffer = '' }
}

function parseAnswer(text) {
  const trimmed = text.trim()
  return trimmed ? JSON.parse(trimmed) : null
}

// One process per call: `hook` argv + event, payload on stdin.
function askOnce(launch, event, payload, timeoutMs, log) {
  return new Promise((resolve) => {
    let out = ''
    let done = false
    const finish = (answer, problem) => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (problem) log(`${event}: ${problem}`)
      resolve(answer)
    }
    let child
    try {
      child = spawn(launch.hook[0], [...launch.hook.slice(1), event], { stdio: ['pipe', 'pipe', 'ignore'] })
    } catch (error) {
      return finish(null, `cannot start python: ${error}`)
    }
    const timer = setTimeout(() => { child.kill('SIGKILL'); finish(null, `no answer within ${timeoutMs} ms`) }, timeoutMs)
    child.on('error', (error) => finish(null, `cannot start python: ${error}`))
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => { out += chunk })
    child.on('close', (code) => {
      try { finish(parseAnswer(out), code ? `exit ${code}` : '') } catch (error) { finish(null, `bad answer: ${error}`) }
    })
    child.stdin.on('error', () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

// The long-lived child: started on first use, restarted after a crash, unref'd so the
// host can exit while it idles (it exits itself on stdin EOF).
class Child {
  constructor(launch, log) {
    this.launch = launch
    this.log = log
    this.process = null
    this.pending = new Map()
    this.nextId = 1
    this.lines = new JsonLines((message) => this.receive(message),
      (line) => log(`bad line from bridge: ${line.slice(0, 200)}`))
    this.crashes = 0
  }

  get usable() { return this.crashes < RESPAWN_LIMIT }

  start() {
    const child = spawn(this.launch.bridge[0], this.launch.bridge.slice(1), { stdio: ['pipe', 'pipe', 'ignore'] })
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => this.lines.push(chunk))
    child.on('error', (error) => this.lost(child, `cannot start python: ${error}`))
    child.on('exit', (code, signal) => this.lost(child, `bridge exited (${signal || code})`))
    child.stdin.on('error', () => {})
    child.unref()
    child.stdin.unref?.()
    child.stdout.unref?.()
    this.process = child
  }

  lost(child, why) {
    if (this.process !== child) return
    this.process = null
    this.lines.reset()
    this.crashes += 1
    this.log(why)
    for (const [, waiter] of this.pending) waiter(null)
    this.pending.clear()
  }

  receive(message) {
    const waiter = this.pending.get(message?.id)
    if (waiter) { this.pending.delete(message.id); waiter(message.answer ?? null) }
  }

  ask(event, payload, timeoutMs) {
    if (!this.process) this.start()
    const id = this.nextId++
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        this.log(`${event}: no answer within ${timeoutMs} ms`)
        resolve(null)
      }, timeoutMs)
      this.pending.set(id, (answer) => { clearTimeout(timer); resolve(answer) })
      this.process.stdin.write(JSON.stringify({ ...payload, id, event }) + '\n')
    })
  }

  close() {
    if (this.process) this.process.stdin.end()
    this.process = null
  }
}

// mode: 'child' (one long-lived process) or 'call' (one process per call).
export function createBridge(launch, platform, mode = 'child') {
  const log = createLogger(launch, platform)
  const child = new Child(launch, log)
  return {
    log,
    async ask(event, payload, timeoutMs) {
      try {
        if (mode === 'child' && child.usable) return await child.ask(event, payload, timeoutMs)
        return await askOnce(launch, event, payload, timeoutMs, log)
      } catch (error) {
        log(`${event}: ${error && error.stack || error}`)
        return null
      }
    },
    // For a host callback that must answer synchronously (a system-prompt section).
    askSync(event, payload, timeoutMs) {
      try {
        const out = execFileSync(launch.hook[0], [...launch.hook.slice(1), event], {
          input: JSON.stringify(payload), timeout: timeoutMs, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'],
        })
        return parseAnswer(out)
      } catch (error) {
        log(`${event}: ${error && error.message || error}`)
        return null
      }
    },
    close() { child.close() },
  }
}
