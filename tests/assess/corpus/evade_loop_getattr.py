# expect: BLOCKED
# rules: MAI014
import asyncio
loop = asyncio.new_event_loop()
getattr(loop, 'subprocess_' + 'shell')(asyncio.SubprocessProtocol, 'id')
