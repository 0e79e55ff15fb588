// ctxmode for OpenClaw: a thin Gateway plugin over ctxmode's Python rules (bridge.js).
//
// before_tool_call: a `{deny}` answer blocks the call with that reason; a `{params}` answer
// rewrites it (a shell command teed into a spool file, so the whole output can be indexed:
// OpenClaw hands plugins only a window of a long output). The tool-result middleware (the
// one seam that can change what the model reads; the manifest declares it): an `{output}`
// answer replaces the result. before_prompt_build appends the routing block to each run's
// system prompt (and the resume guide after a compaction); prompts, results and
// compactions feed session memory. Every decision is made in Python; when it fails or is
// slow the call proceeds untouched and the failure is logged.
import { openBridge } from './bridge.js'

// OpenClaw gives before_tool_call and before_prompt_build 15 s each and blocks the tool
// call when before_tool_call runs out, so ours give up (and let it run) well before that.
const TIMEOUT_MS = { before: 8000, after: 20000, system: 8000, prompt: 5000, compacting: 20000, compacted: 5000 }
const DEFAULT_CONFIG = {
  denyTools: ['web_fetch'],
  truncateTools: ['exec', 'read', 'ls', 'dir_list', 'process', 'web_search'],
  maxResultBytes: 20000,
}

function textBlocks(result) {
  const content = Array.isArray(result?.content) ? result.content : []
  return content.filter((block) => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
}

// The other MCP servers, named as OpenClaw names them in `<server>__<tool>`: characters
// outside [A-Za-z0-9_-] become `-`, a name not starting with a letter gets `mcp-`, 30 at most.
function mcpServerNames(servers, ours) {
  return Object.keys(servers || {}).filter((name) => name !== ours).map((name) => {
    const safe = name.trim().replace(/[^A-Za-z0-9_-]/g, '-') || 'mcp'
    return (/^[A-Za-z]/.test(safe) ? safe : `mcp-${safe}`).slice(0, 30)
  })
}

export default {
  id: 'context-mode',
  name: 'ctxmode',
  description: 'Routes bulky tool calls to the context-mode MCP tools; oversized results become a searchable notice.',
  register(api) {
    let launch, bridge
    try {
      ({ launch, bridge } = openBridge(import.meta.url))
    } catch (error) {
      api.logger?.warn?.(`ctxmode: not active (${error}); run \`ctxmode setup openclaw\` again`)
      return
    }
    const config = { ...DEFAULT_CONFIG, ...(api.pluginConfig || {}) }
    const server = launch.server || 'context-mode'
    // Our MCP tools under the names OpenClaw gives them, `<server>__<tool>`, when our server
    // is configured and tool search is off (else they hide behind tool_search). No hook
    // shows a plugin the MCP tools of a run (llm_input lists the built-in ones only), so
    // the names come from the config; the real-host test checks the model is offered them.
    const tools = api.config?.mcp?.servers?.[server] && api.config?.tools?.toolSearch === false
      ? (launch.ourTools || []).map((tool) => `${server}__${tool}`) : []
    const mcpServers = mcpServerNames(api.config?.mcp?.servers, server)
    const cwds = new Map() // sessionId -> workspace dir
    const compacted = new Set()
    const base = (sessionId, cwd) => ({
      sessionId: sessionId ?? '', cwd: cwd || cwds.get(sessionId) || process.cwd(),
      tools, config,
    })

    api.on('before_tool_call', async (event, ctx) => {
      const payload = { ...base(ctx?.sessionId), tool: event.toolName, input: event.params, callId: event.toolCallId }
      const answer = await bridge.ask('before', payload, TIMEOUT_MS.before)
      if (typeof answer?.deny === 'string') return { block: true, blockReason: answer.deny }
      if (answer?.params && typeof answer.params === 'object') return { params: { ...event.params, ...answer.params } }
    })
    api.registerAgentToolResultMiddleware(async (event, ctx) => {
      const texts = textBlocks(event.result)
      // `longestBlock`: OpenClaw cuts each text block it hands a middleware (see openclaw.py).
      const result = { text: texts.join('\n'), isError: event.isError === true,
        exitCode: event.result?.details?.exitCode,
        longestBlock: Math.max(0, ...texts.map((text) => text.length)) }
      const payload = { ...base(ctx?.sessionId, event.cwd), tool: event.toolName, input: event.args,
        callId: event.toolCallId, result, mcpServers }
      const answer = await bridge.ask('after', payload, TIMEOUT_MS.after)
      if (typeof answer?.output !== 'string') return
      const { aggregated, ...details } = event.result?.details || {} // the output again: stays home
      return { result: { ...event.result, content: [{ type: 'text', text: answer.output }], details } }
    }, { runtimes: ['openclaw'] })
    api.on('before_prompt_build', async (event, ctx) => {
      if (ctx?.workspaceDir) cwds.set(ctx.sessionId, ctx.workspaceDir)
      const payload = base(ctx?.sessionId, ctx?.workspaceDir)
      if (event?.prompt) bridge.ask('prompt', { ...payload, prompt: event.prompt }, TIMEOUT_MS.prompt)
      const answer = await bridge.ask('system', payload, TIMEOUT_MS.system)
      const built = {}
      if (typeof answer?.section === 'string') built.appendSystemContext = answer.section
      if (compacted.delete(ctx?.sessionId)) {
        const guide = await bridge.ask('compacted', payload, TIMEOUT_MS.compacted)
        if (typeof guide?.section === 'string') built.prependSystemContext = guide.section
      }
      return built
    })
    api.on('before_compaction', async (event, ctx) => {
      await bridge.ask('compacting', base(ctx?.sessionId, ctx?.workspaceDir), TIMEOUT_MS.compacting)
      compacted.add(ctx?.sessionId)
    })
  },
}
