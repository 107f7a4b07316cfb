import sys
import pygame

pygame.init()
size = width, height = 640, 480
speed = [3, 2]
screen = pygame.display.set_mode(size)
pygame.display.set_caption("Bouncing ball")
clock = pygame.time.Clock()
ball = pygame.Rect(100, 100, 30, 30)

while True:
    for event in pygame.event.get():
        if event.type == pygame.QUIT:
            pygame.quit()
            sys.exit()
    ball = ball.move(speed)
    if ball.left < 0 or ball.right > width:
        speed[0] = -speed[0]
    if ball.top < 0 or ball.bottom > height:
        speed[1] = -speed[1]
    screen.fill((20, 20, 40))
    pygame.draw.ellipse(screen, (240, 200, 40), ball)
    pygame.display.flip()
    clock.tick(60)
