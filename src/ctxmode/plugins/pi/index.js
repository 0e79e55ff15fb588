// ctxmode for Pi and OMP (Oh My Pi, Pi's fork with the same extension API): a thin
// extension over ctxmode's Python rules (bridge.js).
//
// This extension starts `ctxmode serve` itself (mcp.js) and registers each of its tools
// with `pi.registerTool` under its bare name (`ctx_execute`), before the host's first
// request, because both hosts await an async extension factory. Pi has no MCP client; OMP
// has one but waits only 250 ms for servers at start and mounts their tools behind its
// `xd://` devices, while an extension's tool marked `essential` stays top-level. Then:
// tool_call: a `{deny}` answer blocks the call with our reason (`{block, reason}`); an
// `{args}` answer (a shell command run through `ctxmode-wrap`) patches the call's input:
// Pi runs the `event.input` a handler mutated, OMP the `{input}` a handler returns;
// tool_result: an `{output}` answer replaces what the model reads (Python answers only for
// a big successful output of a listed tool or of another MCP server (OMP runs them; Pi has
// no MCP client), indexed in full first, from the file where the host keeps
// what it cut: Pi's `details.fullOutputPath`, OMP's `artifact://N`); context: the routing block rides as one custom message at the head of every
// request, leaving the system prompt (and its cache) alone; before_agent_start records the
// prompt; session_before_compact snapshots the session and the guide joins the routing
// block after the compaction. Every decision is made in Python; when it fails or is slow
// the call proceeds untouched and the failure is logged.
import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { openBridge } from './bridge.js'
import { McpClient } from './mcp.js'

const TIMEOUT_MS = { start: 60000, call: 900000, before: 3000, after: 20000, system: 3000,
  prompt: 5000, compacting: 20000, compacted: 20000 }
const DEFAULT_CONFIG = {
  denyTools: [],
  truncateTools: ['bash', 'read', 'grep', 'find', 'ls', 'glob'],
  maxResultBytes: 20000,
}
const MESSAGE_TYPE = 'ctxmode'

function textOf(content) {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : ''
  return content.filter((part) => part?.type === 'text').map((part) => part.text).join('\n')
}

// The file holding the whole output when the host showed only part of it, else ''.
function fullOutputPath(event, details, text, ctx) {
  if (typeof details.fullOutputPath === 'string') return details.fullOutputPath // Pi's shell
  const read = event.toolName === 'read' && typeof event.input?.path === 'string'
  if (read && details.truncation?.truncated === true) return resolve(ctx?.cwd || process.cwd(), event.input.path)
  // OMP: `[raw output: artifact://N]` in the text, the file `<session dir>/N.<tool>.log`
  const id = details.meta?.truncation?.artifactId ?? [...text.matchAll(/artifact:\/\/(\d+)/g)].at(-1)?.[1]
  if (typeof id !== 'string' || !/^\d+$/.test(id)) return ''
  try {
    const dir = ctx.sessionManager.getArtifactsDir()
    const name = readdirSync(dir).find((file) => file.startsWith(`${id}.`) && file.endsWith('.log'))
    return name ? join(dir, name) : ''
  } catch { return '' }
}

// OMP's MCP client names a server's tool `mcp__<server>_<tool>` (sanitized, so the name
// alone does not settle where the server's name ends); its result's details say both.
function mcpTool(details) {
  const { serverName: server, mcpToolName: tool } = details
  return typeof server === 'string' && typeof tool === 'string' ? { mcpTool: { server, tool } } : {}
}

async function registerOurTools(pi, server, log) {
  let listed = []
  try {
    listed = await server.listTools(TIMEOUT_MS.start)
  } catch (error) {
    log(`our tools are not available: ${error}`)
  }
  for (const tool of listed) {
    pi.registerTool({
      name: tool.name,
      label: tool.title || tool.name,
      description: tool.description || tool.name,
      parameters: tool.inputSchema || { type: 'object', properties: {} },
      loadMode: 'essential', // OMP: top-level, not behind an xd:// device
      async execute(_callId, params) {
        const result = await server.callTool(tool.name, params, TIMEOUT_MS.call)
        const content = Array.isArray(result?.content) ? result.content : []
        if (result?.isError) throw new Error(textOf(content) || `${tool.name} failed`)
        return { content, details: {} }
      },
    })
  }
  return listed.map((tool) => tool.name)
}

export default async function ctxmode(pi) {
  let launch, bridge
  try {
    ({ launch, bridge } = openBridge(import.meta.url))
  } catch (error) {
    console.warn(`ctxmode: not active (${error}); run \`ctxmode setup pi\` (or omp) again`)
    return
  }
  const config = { ...DEFAULT_CONFIG, ...(launch.config || {}) }
  const platform = launch.hook.at(-1)
  const server = new McpClient(launch.serve, { cwd: process.cwd(), clientName: `ctxmode-${platform}`, log: bridge.log })
  const tools = await registerOurTools(pi, server, bridge.log)
  let routing = null // the routing block, asked once per session
  let guide = null // the resume guide after a compaction
  let compacted = false

  const base = (ctx) => ({ sessionId: ctx?.sessionManager?.getSessionId?.() ?? '', cwd: ctx?.cwd || process.cwd(),
    tools, config })

  pi.on('tool_call', async (event, ctx) => {
    const payload = { ...base(ctx), tool: event.toolName, input: event.input, callId: event.toolCallId }
    const answer = await bridge.ask('before', payload, TIMEOUT_MS.before)
    if (typeof answer?.deny === 'string') return { block: true, reason: answer.deny }
    const input = event.input
    if (answer?.args && typeof answer.args === 'object' && input && typeof input === 'object') {
      Object.assign(input, answer.args)
      return { input: { ...input } }
    }
  })

  pi.on('tool_result', async (event, ctx) => {
    const details = event.details && typeof event.details === 'object' ? event.details : {}
    const output = textOf(event.content)
    const full = fullOutputPath(event, details, output, ctx)
    const result = { output, isError: event.isError === true, fullOutputPath: full, truncated: Boolean(full) }
    const payload = { ...base(ctx), tool: event.toolName, input: event.input, callId: event.toolCallId, result,
      ...mcpTool(details) }
    const answer = await bridge.ask('after', payload, TIMEOUT_MS.after)
    if (typeof answer?.output === 'string') return { content: [{ type: 'text', text: answer.output }] }
  })

  pi.on('before_agent_start', async (event, ctx) => {
    if (event.prompt) bridge.ask('prompt', { ...base(ctx), prompt: event.prompt }, TIMEOUT_MS.prompt)
  })

  pi.on('context', async (event, ctx) => {
    if (routing === null) {
      const answer = await bridge.ask('system', base(ctx), TIMEOUT_MS.system)
      routing = typeof answer?.section === 'string' ? answer.section : ''
    }
    if (compacted) {
      compacted = false
      const answer = await bridge.ask('compacted', base(ctx), TIMEOUT_MS.compacted)
      guide = typeof answer?.section === 'string' ? answer.section : null
    }
    const text = [routing, guide].filter(Boolean).join('\n\n')
    if (!text || !Array.isArray(event.messages)) return
    const ours = { role: 'custom', customType: MESSAGE_TYPE, content: text, display: false, timestamp: 0 }
    return { messages: [ours, ...event.messages] }
  })

  pi.on('session_before_compact', async (_event, ctx) => {
    await bridge.ask('compacting', base(ctx), TIMEOUT_MS.compacting)
  })

  pi.on('session_compact', async () => { compacted = true })

  pi.on('session_shutdown', async () => {
    server.close()
    bridge.close()
  })
}
