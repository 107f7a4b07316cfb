import os
import random

import discord

intents = discord.Intents.default()
intents.message_content = True
client = discord.Client(intents=intents)


@client.event
async def on_ready():
    print(f"Logged in as {client.user}")


@client.event
async def on_message(message):
    if message.author == client.user:
        return
    if message.content.startswith("!roll"):
        await message.channel.send(f"🎲 {random.randint(1, 6)}")
    elif message.content.startswith("!hello"):
        await message.channel.send(f"Hello {message.author.display_name}!")


client.run(os.environ["DISCORD_TOKEN"])
