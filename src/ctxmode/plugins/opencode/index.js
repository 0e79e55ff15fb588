// ctxmode for OpenCode and Kilo: a thin shim over ctxmode's Python rules (bridge.js).
//
// tool.execute.before: a `{deny}` answer throws, which blocks the call with that reason;
// an `{args}` answer is merged into the call's arguments, which the host then runs.
// tool.execute.after: an `{output}` answer replaces what the model reads (Python answers
// only for a big successful output of a listed tool or another MCP server, indexed in full
// first). The system-prompt transform
// carries the routing block (and, after a compaction, the resume guide); user messages
// and compactions feed session memory. Every decision is made in Python; when it fails
// or is slow the call proceeds untouched and the failure is logged. Only the plugin
// function is exported: the host calls every export.
import { openBridge } from './bridge.js'

const TIMEOUT_MS = { before: 3000, after: 20000, system: 3000, prompt: 5000, compacting: 20000, compacted: 20000 }
const MAX_METADATA_STRING = 1024 // the output again, in metadata: stays home
const DEFAULT_CONFIG = {
  denyTools: [],
  truncateTools: ['bash', 'read', 'grep', 'glob', 'list', 'webfetch'],
  maxResultBytes: 20000,
}

function brief(value) {
  try {
    return JSON.parse(JSON.stringify(value ?? {}, (key, item) =>
      typeof item === 'string' && item.length > MAX_METADATA_STRING && key !== 'outputPath' ? undefined : item))
  } catch { return {} }
}

function withTimeout(promise, ms) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(null), ms).unref?.())])
}

export const CtxmodePlugin = async ({ client, directory }) => {
  let launch, bridge
  try {
    ({ launch, bridge } = openBridge(import.meta.url))
  } catch (error) {
    console.warn(`ctxmode: not active (${error}); run \`ctxmode setup\` again`)
    return {}
  }
  const config = { ...DEFAULT_CONFIG, ...(launch.config || {}) }
  // Our MCP tools as the host names them (`<server>_<tool>`), once our server is connected:
  // a reason naming a tool the model cannot call is worse than none.
  // The other connected MCP servers (`mcpServers`) tell their tools (`<server>_<tool>`) from
  // built-in ones, whose names hold no `_`: asked again when a tool names none of them.
  let tools = []
  let servers = []
  const sanitized = (name) => name.replace(/[^a-zA-Z0-9_-]/g, '_')
  async function offered(tool = '') {
    const unknown = tool.includes('_') && !servers.some((name) => tool.startsWith(sanitized(name) + '_'))
    if (tools.length && !unknown) return tools
    try {
      const status = await withTimeout(client.mcp.status(), 2000)
      const server = launch.server || 'context-mode'
      servers = Object.keys(status?.data || {}).filter((name) => status.data[name]?.status === 'connected')
      if (status?.data?.[server]?.status === 'connected') {
        tools = (launch.ourTools || []).map((name) => sanitized(server) + '_' + name)
      }
    } catch (error) {
      bridge.log(`mcp status: ${error}`)
    }
    return tools
  }
  const base = async (sessionID, tool) => ({ sessionId: sessionID ?? '', cwd: directory || process.cwd(),
    tools: await offered(tool), mcpServers: servers.map(sanitized), config })
  const compacted = new Set()

  return {
    'tool.execute.before': async (input, output) => {
      const payload = { ...(await base(input.sessionID)), tool: input.tool, input: output.args, callId: input.callID }
      const answer = await bridge.ask('before', payload, TIMEOUT_MS.before)
      if (typeof answer?.deny === 'string') throw new Error(answer.deny)
      if (answer?.args && typeof answer.args === 'object' && output?.args) Object.assign(output.args, answer.args)
    },
    // A built-in tool's result is `{output, metadata}`; an MCP tool's is the server's own
    // `{content: [blocks]}`, seen whole, before the host cuts the text it makes of it.
    'tool.execute.after': async (input, output) => {
      const blocks = Array.isArray(output?.content) ? output.content : null
      const text = blocks ? blocks.filter((block) => block?.type === 'text').map((block) => block.text).join('\n')
        : output?.output
      if (typeof text !== 'string') return
      const payload = { ...(await base(input.sessionID, input.tool)), tool: input.tool, input: input.args,
        callId: input.callID, result: { output: text, isError: output?.isError === true, metadata: brief(output.metadata) } }
      const answer = await bridge.ask('after', payload, TIMEOUT_MS.after)
      if (typeof answer?.output !== 'string') return
      if (blocks) output.content = [{ type: 'text', text: answer.output }]
      else output.output = answer.output
    },
    'chat.message': async (input, output) => {
      const prompt = (output?.parts || []).filter((part) => part.type === 'text' && !part.synthetic)
        .map((part) => part.text).join('\n')
      if (prompt) bridge.ask('prompt', { ...(await base(input.sessionID)), prompt }, TIMEOUT_MS.prompt)
    },
    'experimental.session.compacting': async (input, output) => {
      const answer = await bridge.ask('compacting', await base(input.sessionID), TIMEOUT_MS.compacting)
      if (typeof answer?.section === 'string' && Array.isArray(output?.context)) output.context.push(answer.section)
    },
    // Once the compaction is done (not at its start: the summary request has a system
    // prompt of its own) the session's next system prompt carries the resume guide.
    event: async ({ event }) => {
      const sessionID = event?.properties?.sessionID
      if (event?.type === 'session.compacted' && typeof sessionID === 'string') compacted.add(sessionID)
    },
    'experimental.chat.system.transform': async (input, output) => {
      if (!Array.isArray(output?.system)) return
      const payload = await base(input.sessionID)
      const answer = await bridge.ask('system', payload, TIMEOUT_MS.system)
      if (typeof answer?.section === 'string') output.system.push(answer.section)
      if (compacted.delete(input.sessionID)) {
        const guide = await bridge.ask('compacted', payload, TIMEOUT_MS.compacted)
        if (typeof guide?.section === 'string') output.system.push(guide.section)
      }
    },
  }
}
