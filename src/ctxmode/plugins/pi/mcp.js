// A minimal MCP client over stdio: starts `ctxmode serve`, lists its tools, calls them.
//
// Pi has no MCP support of its own, so the extension brings our server's tools in through
// `pi.registerTool`. MCP's stdio transport is one JSON-RPC message per line; this client
// needs only initialize, tools/list and tools/call. A server that dies is started again
// on the next call, so one crash does not take the tools away for the rest of a session.
import { spawn } from 'node:child_process'
import { JsonLines } from './bridge.js'

const PROTOCOL_VERSION = '2025-06-18'

export class McpClient {
  constructor(command, { cwd, clientName, log }) {
    this.command = command
    this.cwd = cwd
    this.clientName = clientName
    this.log = log
    this.process = null
    this.ready = null
    this.pending = new Map()
    this.nextId = 1
    this.lines = new JsonLines((message) => this.receive(message),
      (line) => log(`bad line from ctxmode serve: ${line.slice(0, 200)}`))
  }

  // Resolves once the server answered initialize (a fresh start after a crash).
  start(timeoutMs) {
    if (this.ready) return this.ready
    const child = spawn(this.command[0], this.command.slice(1), { cwd: this.cwd, stdio: ['pipe', 'pipe', 'ignore'] })
    this.process = child
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => this.lines.push(chunk))
    child.on('error', (error) => this.lost(child, `cannot start ctxmode serve: ${error}`))
    child.on('exit', (code, signal) => this.lost(child, `ctxmode serve exited (${signal || code})`))
    child.stdin.on('error', () => {})
    this.hold(child, false)
    const params = { protocolVersion: PROTOCOL_VERSION, capabilities: {},
      clientInfo: { name: this.clientName, version: '1' } }
    this.ready = this.request('initialize', params, timeoutMs).then(() => {
      this.notify('notifications/initialized')
    })
    this.ready.catch(() => { this.ready = null })
    return this.ready
  }

  // Keep Node alive while an answer is awaited (else a host whose only pending work is
  // our request exits mid-startup), and let it exit while the server idles.
  hold(child, waiting) {
    for (const handle of [child, child.stdin, child.stdout]) {
      if (waiting) handle.ref?.()
      else handle.unref?.()
    }
  }

  lost(child, why) {
    if (this.process !== child) return
    this.process = null
    this.ready = null
    this.lines.reset()
    this.log(why)
    for (const [, waiter] of this.pending) waiter.reject(new Error(why))
    this.pending.clear()
  }

  receive(message) {
    const waiter = this.pending.get(message?.id)
    if (!waiter) return
    this.pending.delete(message.id)
    if (message.error) waiter.reject(new Error(message.error.message || JSON.stringify(message.error)))
    else waiter.resolve(message.result)
  }

  request(method, params, timeoutMs) {
    const child = this.process
    if (!child) return Promise.reject(new Error('ctxmode serve is not running'))
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        if (this.pending.size === 0 && this.process) this.hold(this.process, false)
        reject(new Error(`${method}: no answer within ${timeoutMs} ms`))
      }, timeoutMs)
      const settle = (how) => (value) => {
        clearTimeout(timer)
        if (this.pending.size === 0 && this.process) this.hold(this.process, false)
        how(value)
      }
      this.hold(child, true)
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) })
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n')
    })
  }

  notify(method) {
    this.process?.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n')
  }

  async listTools(timeoutMs) {
    await this.start(timeoutMs)
    const result = await this.request('tools/list', {}, timeoutMs)
    return Array.isArray(result?.tools) ? result.tools : []
  }

  async callTool(name, args, timeoutMs) {
    await this.start(timeoutMs)
    return this.request('tools/call', { name, arguments: args ?? {} }, timeoutMs)
  }

  close() {
    if (this.process) this.process.stdin.end()
    this.process = null
    this.ready = null
  }
}
