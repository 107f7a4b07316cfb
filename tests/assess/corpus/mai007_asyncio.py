# expect: MEDIUM
# rules: MAI007
import asyncio
async def main():
    p = await asyncio.create_subprocess_exec('ls')
